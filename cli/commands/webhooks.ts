import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { companyExists } from '../../server/companies/read-companies.ts';
import { readEnvironment, webhookPolicyOf } from '../../server/config.ts';
import { isDomainError } from '../../server/domain-errors.ts';
import { systemResolve } from '../../server/webhooks/address-policy.ts';
import { createEndpoint } from '../../server/webhooks/create-endpoint.ts';
import { WebhookOutbox } from '../../server/webhooks/outbox.ts';
import { SecretBox } from '../../server/webhooks/secret-box.ts';
import { resolveSecretKey } from '../../server/webhooks/secret-key.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { type EventList, eventListSchema, webhookEventTypes } from '../../shared/webhooks.ts';
import {
  positiveInt,
  print,
  targetOf,
  text,
  withDatabaseOptions,
  withStorage,
} from '../options.ts';

function eventList(value: string): EventList {
  const parsed = eventListSchema.safeParse(
    value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  if (!parsed.success) {
    throw new InvalidArgumentError(
      `--events must be * or a comma-separated list of: ${webhookEventTypes.join(', ')}.`,
    );
  }
  return parsed.data;
}

/** `webhook create`: an endpoint for a company, as `POST /webhooks` makes it. */
export function registerWebhookCommands(program: Command): void {
  withDatabaseOptions(
    program
      .command('webhook')
      .description('webhook endpoints')
      .command('create')
      .description('create a webhook endpoint; prints its id and its secret (once), tab-separated')
      .requiredOption('--company <id>', 'company id', positiveInt('--company'))
      .requiredOption('--url <url>', 'where events are POSTed (https://)', text('--url', 2000))
      .requiredOption('--events <list>', 'comma-separated event types, or * for all', eventList)
      .option('--description <text>', 'what the endpoint is for', text('--description', 255))
      .option('--webhooks-allow-http', 'accept a plain http:// URL, as the server flag does')
      .option(
        '--webhooks-allow-private',
        'accept a loopback, link-local or private address, as the server flag does',
      ),
  ).action(async (options) => {
    const env = readEnvironment();
    if (!URL.canParse(options.url)) throw new UsageError('--url must be a valid URL');
    const created = await withStorage(
      options,
      async (storage) => {
        if (!(await companyExists(storage.db, options.company))) {
          throw new UsageError(`no company with id ${options.company}`, { pointsToHelp: false });
        }
        const key = resolveSecretKey(env.SHOPDESK_SECRET_KEY, targetOf(options));
        try {
          return await createEndpoint(
            {
              storage,
              outbox: new WebhookOutbox(storage),
              box: new SecretBox(key.key),
              policy: webhookPolicyOf(options, env),
              resolve: systemResolve,
            },
            storage.db,
            options.company,
            { url: options.url, events: options.events, description: options.description },
            new Date(),
          );
        } catch (error) {
          if (isDomainError(error)) {
            throw new UsageError(error.message, { pointsToHelp: false });
          }
          throw error;
        }
      },
      { existing: true },
    );
    print(`${created.id}\t${created.secret}`);
  });
}
