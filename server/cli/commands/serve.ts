import { type Command, InvalidArgumentError } from 'commander';
import { parseCorsOrigins } from '../../http/cors.ts';
import { duration, nonNegativeInt, portNumber, text, withDatabaseOptions } from '../options.ts';

function corsOrigins(value: string): string[] {
  try {
    return parseCorsOrigins(value);
  } catch (error) {
    throw new InvalidArgumentError(`--cors-origin: ${(error as Error).message}.`);
  }
}

export function registerServe(program: Command): void {
  withDatabaseOptions(
    program
      .command('serve')
      .description('migrate the database, then serve the API until SIGINT/SIGTERM')
      .option(
        '--host <host>',
        'address to listen on (env SHOPDESK_HOST; default 127.0.0.1)',
        text('--host', 255),
      )
      .option(
        '--port <port>',
        'port to listen on, 0 for any (env SHOPDESK_PORT; default 8080)',
        portNumber('--port'),
      )
      .option(
        '--rate-limit <n>',
        'requests a minute per token, 0 for none (env SHOPDESK_RATE_LIMIT; default 1200)',
        nonNegativeInt('--rate-limit'),
      )
      .option(
        '--cors-origin <list>',
        'origins whose browser apps may call the API, comma-separated, or * (env SHOPDESK_CORS_ORIGIN; default none)',
        corsOrigins,
      )
      .option(
        '--max-connections <n>',
        'connections open at once, 0 for no limit (env SHOPDESK_MAX_CONNECTIONS; default 1000)',
        nonNegativeInt('--max-connections'),
      )
      .option(
        '--idempotency-ttl <duration>',
        'how long idempotency keys are kept: seconds, or 15m, 24h, 7d (default 24h)',
        duration('--idempotency-ttl'),
      )
      .option(
        '--webhooks-allow-http',
        'accept plain http:// webhook URLs (env SHOPDESK_WEBHOOKS_ALLOW_HTTP)',
      )
      .option(
        '--webhooks-allow-private',
        'accept webhook URLs on loopback, link-local and private addresses (env SHOPDESK_WEBHOOKS_ALLOW_PRIVATE)',
      )
      .option('--demo', 'on a fresh database, create a demo company and print its tokens'),
    { creates: true },
  ).action(async (options) => {
    // The server (HTTP core, every route and its schemas, the logger) is loaded only here:
    // the other commands start in a fraction of the time without it.
    const { runServer } = await import('../run-server.ts');
    await runServer(options);
  });
}
