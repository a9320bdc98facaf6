import { Command, CommanderError } from 'commander';
import { helpHint, UsageError } from '../../shared/usage-error.ts';
import { type AgentFlags, addAgentCommand } from './agent-command.ts';

/**
 * `shopdesk agent …` on its own: the entry of the headless agent's bundle (agent/headless/
 * bundle.ts), which bin/shopdesk.js runs instead of the whole `shopdesk` CLI so that the agent
 * process loads none of the server's code. The command is the full CLI's (agent-command.ts);
 * the exit codes are the CLI's; the checks are agent/core/cli.ts's. `run` is what its action
 * does with the flags.
 */
export function buildAgentProgram(run?: (options: AgentFlags) => Promise<void>): Command {
  const program = new Command('shopdesk')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      outputError: (line, write) =>
        write(`${line.trim().replace(/\n+/g, ' ')}${helpHint('shopdesk agent')}\n`),
    });
  return addAgentCommand(program, run);
}

/** Parses `argv` (`node`, the script, `agent`, flags…) and runs the agent; exit codes as the CLI's. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildAgentProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
    if (error instanceof UsageError) {
      const hint = error.pointsToHelp ? helpHint('shopdesk agent') : '';
      process.stderr.write(`error: ${error.message}${hint}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  }
}

// Run as a program (the bundle started by `node agent.mjs agent …`), not imported by bin/shopdesk.js.
if (import.meta.main) await main(process.argv);
