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
    .description('run the print agent headless; prints a line per job printed or failed')
    .requiredOption('--server <url>', 'the ShopDesk server, e.g. http://shop-server:8080')
    .requiredOption('--token <token>', 'a token with the printing.agent permission')
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
      await runAgentCommand({
        server: options.server,
        token: options.token,
        route: options.route,
        ...(options.stateDir ? { stateDir: options.stateDir } : {}),
        ...(options.name ? { name: options.name } : {}),
      });
    });
}
