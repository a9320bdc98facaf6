import { type Command, InvalidArgumentError } from 'commander';
import { addCloudPrntPrinter, revokeCloudPrntPrinter } from '../../server/cloudprnt/index.ts';
import { companyExists } from '../../server/companies/read-companies.ts';
import { isoNow } from '../../server/time.ts';
import { WebhookOutbox } from '../../server/webhooks/outbox.ts';
import { routeNameSchema } from '../../shared/printing.ts';
import { UsageError } from '../../shared/usage-error.ts';
import {
  agentUuid,
  positiveInt,
  print,
  text,
  withDatabaseOptions,
  withStorage,
} from '../options.ts';

function routeName(value: string): string {
  if (!routeNameSchema.safeParse(value).success) {
    throw new InvalidArgumentError(
      '--route must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".',
    );
  }
  return value;
}

function serverUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {}
  throw new InvalidArgumentError(
    '--server must be the http(s) address the printer reaches ShopDesk at.',
  );
}

/**
 * `cloudprnt add|revoke`: printers that poll ShopDesk themselves (docs/cloudprnt.md). `add`
 * prints the three values to type into the printer's CloudPRNT settings, one per line,
 * `URL=`, `USER=`, `PASSWORD=`, for a person or a script; the password is not shown again.
 */
export function registerCloudPrntCommands(program: Command): void {
  const cloudprnt = program
    .command('cloudprnt')
    .description('Star CloudPRNT printers: printers that need no PC');
  withDatabaseOptions(
    cloudprnt
      .command('add')
      .description('add a CloudPRNT printer; prints the URL, user and password for its settings')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--route <name>', 'the route it prints', routeName)
      .option('--name <name>', 'what people call it, e.g. "Kitchen"', text('--name', 255))
      .option(
        '--server <url>',
        'the address the printer reaches ShopDesk at (default http://localhost:8080)',
        serverUrl,
      ),
  ).action(async (options) => {
    const added = await withStorage(
      options,
      async (storage) => {
        if (!(await companyExists(storage.db, options.company))) {
          throw new UsageError(`no company with id ${options.company}`, { pointsToHelp: false });
        }
        const deps = { storage, outbox: new WebhookOutbox(storage) };
        return addCloudPrntPrinter(
          deps,
          storage.db,
          { companyId: options.company, route: options.route, name: options.name },
          new Date(),
        );
      },
      { existing: true },
    );
    print(`URL=${options.server ?? 'http://localhost:8080'}/api/v1/cloudprnt`);
    print(`USER=${added.username}`);
    print(`PASSWORD=${added.password}`);
    process.stderr.write(
      `CloudPRNT printer ${added.agentUuid} added on route ${options.route}: type these into its CloudPRNT settings; the password is not shown again\n`,
    );
  });
  withDatabaseOptions(
    cloudprnt
      .command('revoke')
      .description("revoke a CloudPRNT printer's password: its next poll is refused")
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .argument('<agent>', "the printer's agent id (GET /printing/agents)", agentUuid),
  ).action(async (agent: string, options) => {
    const revoked = await withStorage(
      options,
      (storage) =>
        revokeCloudPrntPrinter(storage.db, options.company, agent.toLowerCase(), isoNow()),
      { existing: true },
    );
    if (!revoked) {
      throw new UsageError(
        `no CloudPRNT printer ${agent} with a password in company ${options.company}`,
        {
          pointsToHelp: false,
        },
      );
    }
    print(`revoked CloudPRNT printer ${agent}`);
  });
}
