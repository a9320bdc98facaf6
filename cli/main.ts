import { Command, CommanderError } from 'commander';
import { UsageError } from '../shared/usage-error.ts';
import { registerAgentCommand } from './commands/agent.ts';
import { registerEnrollmentCommands } from './commands/enrollments.ts';
import { registerJobCommands } from './commands/jobs.ts';
import { registerRecordCommands } from './commands/records.ts';
import { registerReleaseCommands } from './commands/releases.ts';
import { registerServe } from './commands/serve.ts';
import { registerTemplateCommands } from './commands/templates.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';

/** The `shopdesk` operator command line (docs/reference.md lists its commands; tests call it). */
export function buildProgram(): Command {
  const program = new Command('shopdesk')
    .description('ShopDesk integration API and print agent')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      // Commander's errors are one line already; keep them so, on stderr.
      outputError: (line, write) => write(line.trim().replace(/\n+/g, ' ') + '\n'),
    });
  registerServe(program);
  registerRecordCommands(program);
  registerJobCommands(program);
  registerTemplateCommands(program);
  registerAgentCommand(program);
  registerWebhookCommands(program);
  registerEnrollmentCommands(program);
  registerReleaseCommands(program);
  return program;
}

/**
 * Runs one command line and resolves to its exit code: 0, 2 for bad arguments (one line on
 * stderr), 1 for any other failure. `serve` resolves once it listens; its process goes on.
 * The tests run commands through it in their own process (test/helpers/shopdesk-cli.ts).
 */
export async function runShopdesk(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

export async function main(argv: string[]): Promise<void> {
  const code = await runShopdesk(argv);
  if (code !== 0) process.exit(code);
}
