import { type Command, InvalidArgumentError } from 'commander';
import { addCloudPrntPrinter, revokeCloudPrntPrinter } from '../../server/cloudprnt/index.ts';
import { companyExists } from '../../server/companies/read-companies.ts';
import { isoNow } from '../../server/time.ts';
import { WebhookOutbox } from '../../server/webhooks/outbox.ts';
import { type CloudPrinterKind, cloudPrinterKinds } from '../../shared/cloudprnt.ts';
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

function printerKind(value: string): CloudPrinterKind {
  const kind = cloudPrinterKinds.find((k) => k === value);
  if (!kind)
    throw new InvalidArgumentError(
      '--kind must be star (CloudPRNT) or epson (Server Direct Print).',
    );
  return kind;
}

/** What each kind's printer calls the three values, as its settings page shows them. */
const settingsOf = {
  star: { path: '/api/v1/cloudprnt', noun: 'CloudPRNT printer', page: 'its CloudPRNT settings' },
  epson: {
    path: '/api/v1/cloudprnt/epson',
    noun: 'Epson printer',
    page: 'its Server Direct Print settings (WebConfig: URL, ID, Password)',
  },
} as const;

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
 * `cloudprnt add|revoke`: printers that poll ShopDesk themselves (docs/cloudprnt.md), Star's
 * CloudPRNT and, with `--kind epson`, Epson's Server Direct Print. `add` prints the three
 * values to type into the printer's settings, one per line, `URL=`, `USER=`, `PASSWORD=`, for
 * a person or a script; the password is not shown again.
 */
export function registerCloudPrntCommands(program: Command): void {
  const cloudprnt = program
    .command('cloudprnt')
    .description('Star CloudPRNT and Epson Server Direct Print printers: printers that need no PC');
  withDatabaseOptions(
    cloudprnt
      .command('add')
      .description(
        'add a CloudPRNT (or Epson) printer; prints the URL, user and password for its settings',
      )
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--route <name>', 'the route it prints', routeName)
      .option('--name <name>', 'what people call it, e.g. "Kitchen"', text('--name', 255))
      .option(
        '--kind <kind>',
        'star (CloudPRNT, the default) or epson (Server Direct Print)',
        printerKind,
      )
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
          {
            companyId: options.company,
            route: options.route,
            name: options.name,
            kind: options.kind,
          },
          new Date(),
        );
      },
      { existing: true },
    );
    const settings = settingsOf[(options.kind as CloudPrinterKind | undefined) ?? 'star'];
    print(`URL=${options.server ?? 'http://localhost:8080'}${settings.path}`);
    print(`USER=${added.username}`);
    print(`PASSWORD=${added.password}`);
    process.stderr.write(
      `${settings.noun} ${added.agentUuid} added on route ${options.route}: type these into ${settings.page}; the password is not shown again\n`,
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
