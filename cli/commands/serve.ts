import { type Command, InvalidArgumentError } from 'commander';
import { type LogFormat, logFormats, maxPgPoolSize } from '../../server/config.ts';
import { parseCorsOrigins } from '../../server/http/cors.ts';
import { parsePublicUrl } from '../../server/http/public-origin.ts';
import { duration, nonNegativeInt, portNumber, text, withDatabaseOptions } from '../options.ts';

function corsOrigins(value: string): string[] {
  try {
    return parseCorsOrigins(value);
  } catch (error) {
    throw new InvalidArgumentError(`--cors-origin: ${(error as Error).message}.`);
  }
}

function publicUrl(value: string): string {
  try {
    return parsePublicUrl(value);
  } catch (error) {
    throw new InvalidArgumentError(`--public-url ${(error as Error).message}.`);
  }
}

function logFormat(value: string): LogFormat {
  if (!(logFormats as readonly string[]).includes(value)) {
    throw new InvalidArgumentError('--log-format must be json or human.');
  }
  return value as LogFormat;
}

function pgPoolSize(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > maxPgPoolSize) {
    throw new InvalidArgumentError(
      `--pg-pool-size must be a whole number from 1 to ${maxPgPoolSize}.`,
    );
  }
  return Number(value);
}

function redisUrl(value: string): string {
  if (!/^rediss?:\/\//.test(value)) {
    throw new InvalidArgumentError('--redis-url must be a redis:// URL.');
  }
  return value;
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
        '--redis-url <url>',
        'count the rate limit in this Redis, shared by all instances (env SHOPDESK_REDIS_URL)',
        redisUrl,
      )
      .option(
        '--pg-pool-size <n>',
        'PostgreSQL connections the instance pools at most, shared by queries and rate limits; one LISTEN connection comes beside them (env SHOPDESK_PG_POOL_SIZE; default 10)',
        pgPoolSize,
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
        '--hold-limit <duration>',
        'how long a queued job may wait for an agent or a printer before it expires, unless it gave its own expires_in: seconds, or 15m, 24h, 7d (default 24h)',
        duration('--hold-limit'),
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
      .option(
        '--public-url <url>',
        'the URL clients reach the API at, e.g. https://shop.example.com behind a proxy: Location and page links use it (env SHOPDESK_PUBLIC_URL; default the listening address)',
        publicUrl,
      )
      .option(
        '--trust-proxy',
        'honour X-Forwarded-Proto/Host from the reverse proxy in front (env SHOPDESK_TRUST_PROXY); only behind one that sets them',
      )
      .option(
        '--log-format <format>',
        'json or human (env SHOPDESK_LOG_FORMAT; default human when the log goes to a terminal, json otherwise)',
        logFormat,
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
