import type { Command } from 'commander';
import { nonNegativeInt, text, withDatabaseOptions } from '../options.ts';

export function registerServe(program: Command): void {
  withDatabaseOptions(
    program
      .command('serve')
      .description('migrate the database, then serve the API until SIGINT/SIGTERM')
      .option('--host <host>', 'address to listen on (default 127.0.0.1)', text('--host', 255))
      .option(
        '--port <port>',
        'port to listen on, 0 for any (default 8080)',
        nonNegativeInt('--port'),
      )
      .option(
        '--rate-limit <n>',
        'requests a minute per token, 0 for none (default 1200)',
        nonNegativeInt('--rate-limit'),
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
  ).action(async (options) => {
    // The server (HTTP core, every route and its schemas, the logger) is loaded only here:
    // the other commands start in a fraction of the time without it.
    const { runServer } = await import('../run-server.ts');
    await runServer(options);
  });
}
