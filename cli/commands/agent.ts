import type { Command } from 'commander';
import { addAgentCommand } from '../../agent/headless/agent-command.ts';

/**
 * `shopdesk agent`: the print agent, headless. The command is defined once, beside the
 * headless bundle's entry that runs it without the server's code (agent/headless/); its flags
 * are checked by the agent core (agent/core/cli.ts), which the Electron app runs unchanged and
 * which is loaded only when the command runs.
 */
export function registerAgentCommand(program: Command): void {
  addAgentCommand(program);
}
