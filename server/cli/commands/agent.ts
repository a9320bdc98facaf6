import type { Command } from 'commander';
import { text } from '../options.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * `shopdesk agent`: the print agent, headless. The flags are checked by the agent core
 * (agent/core/cli.ts), which the Electron app runs unchanged; it is loaded only here.
 */
export function registerAgentCommand(program: Command): void {
  program
    .command('agent')
    .description(
      'run the print agent headless; prints a line per job printed or failed; exits 77 when the server refuses its token',
    )
    .requiredOption('--server <url>', 'the ShopDesk server, e.g. http://shop-server:8080')
    .option(
      '--token-file <file>',
      'a file holding the token (or env SHOPDESK_AGENT_TOKEN); the token needs printing.agent',
    )
    .option('--token <token>', 'the token itself: other users see it in the process list')
    .option(
      '--route <NAME=PRINTER>',
      'route to an OS printer name or folder:DIR (repeat for each route)',
      collect,
      [],
    )
    .option('--state-dir <dir>', 'where the agent keeps its id, journal and outbox')
    .option('--name <name>', 'how the agent shows on the server', text('--name', 255))
    .action(async (options) => {
      // Its UsageError is shared/usage-error.ts's, which main.ts prints with exit code 2.
      const { runAgentCommand } = await import('../../../agent/core/cli.ts');
      const code = await runAgentCommand({
        server: options.server,
        ...(options.token !== undefined ? { token: options.token } : {}),
        ...(options.tokenFile !== undefined ? { tokenFile: options.tokenFile } : {}),
        route: options.route,
        ...(options.stateDir ? { stateDir: options.stateDir } : {}),
        ...(options.name ? { name: options.name } : {}),
      });
      process.exitCode = code;
      // A job still printing after the stop's grace period keeps its spooler follow-up
      // alive; the journal covers it, so the process need not wait for it.
      setTimeout(() => process.exit(code), 2000).unref();
    });
}
