import { type Command, InvalidArgumentError } from 'commander';
import type { AgentCommandOptions } from '../core/cli.ts';

/**
 * The `agent` command of `shopdesk`, defined once: the full CLI (cli/main.ts) and the
 * headless bundle's entry (main.ts, which loads none of the server's code) both add it. It
 * imports only commander; the agent core is loaded when the command runs.
 */

const collect = (value: string, previous: string[]) => [...previous, value];

function trimmedName(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new InvalidArgumentError('--name must not be empty.');
  if (trimmed.length > 255)
    throw new InvalidArgumentError('--name must be at most 255 characters.');
  return trimmed;
}

/** Adds `agent` to `program`; `run` is what its action does with the flags. */
export function addAgentCommand(
  program: Command,
  run: (options: AgentFlags) => Promise<void> = runHeadless,
): Command {
  program
    .command('agent')
    .description(
      'run the print agent headless; prints a line per job printed or failed; exits 77 when the server refuses its token',
    )
    .option(
      '--server <url>',
      'the ShopDesk server, e.g. http://shop-server:8080 (or "server" in the config file)',
    )
    .option(
      '--enroll <code>',
      'trade this enrolment code (shopdesk enrollment create) for the agent token, once',
    )
    .option(
      '--config <file>',
      'a configuration file instead of the machine-wide one (/etc/shopdesk/agent.json)',
    )
    .option(
      '--token-file <file>',
      'a file holding the token (or env SHOPDESK_AGENT_TOKEN); the token needs printing.agent',
    )
    .option('--token <token>', 'the token itself: other users see it in the process list')
    .option(
      '--route <NAME=PRINTER>',
      'route to an OS printer name, folder:DIR or socket://HOST[:PORT] (repeat for each route)',
      collect,
      [],
    )
    .option(
      '--profile <NAME=JSON>',
      'what route NAME\'s printer understands, e.g. receipts={"language":"escpos","width_mm":80} (docs/templates.md)',
      collect,
      [],
    )
    .option('--state-dir <dir>', 'where the agent keeps its id, journal and outbox')
    .option('--name <name>', 'how the agent shows on the server', trimmedName)
    .action(run);
  return program;
}

/** What the flags give `runAgentCommand`: its options that a command line can set. */
export type AgentFlags = Pick<
  AgentCommandOptions,
  'server' | 'token' | 'tokenFile' | 'route' | 'profile' | 'stateDir' | 'name' | 'enroll' | 'config'
>;

async function runHeadless(options: AgentFlags): Promise<void> {
  const { runAgentCommand } = await import('../core/cli.ts');
  const code = await runAgentCommand({
    ...(options.server !== undefined ? { server: options.server } : {}),
    ...(options.enroll !== undefined ? { enroll: options.enroll } : {}),
    ...(options.config !== undefined ? { config: options.config } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.tokenFile !== undefined ? { tokenFile: options.tokenFile } : {}),
    route: options.route,
    ...(options.profile && options.profile.length > 0 ? { profile: options.profile } : {}),
    ...(options.stateDir ? { stateDir: options.stateDir } : {}),
    ...(options.name ? { name: options.name } : {}),
  });
  process.exitCode = code;
  // A job still printing after the stop's grace period keeps its spooler follow-up alive;
  // the journal covers it, so the process need not wait for it.
  setTimeout(() => process.exit(code), 2000).unref();
}
