import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { helpHint, UsageError } from '../shared/usage-error.ts';
import { registerAgentCommand } from './commands/agent.ts';
import { registerCloudPrntCommands } from './commands/cloudprnt.ts';
import { registerEnrollmentCommands } from './commands/enrollments.ts';
import { registerJobCommands } from './commands/jobs.ts';
import { registerRecordCommands } from './commands/records.ts';
import { registerReleaseCommands } from './commands/releases.ts';
import { registerServe } from './commands/serve.ts';
import { registerTemplateCommands } from './commands/templates.ts';
import { registerUserCommands } from './commands/users.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';

/**
 * The `shopdesk` operator command line (docs/reference.md lists its commands; tests call it).
 * `hint` ends each of Commander's error lines: it names the command whose `--help` explains.
 */
export function buildProgram(hint: () => string = () => ''): Command {
  const program = new Command('shopdesk')
    .description('ShopDesk integration API and print agent')
    .version(packageJson.version, '-V, --version', 'print the version')
    // The program's options only before a command: `release add --version 1.2.0` is the
    // release's version, not a question about shopdesk's.
    .enablePositionalOptions()
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      // Commander's errors are one line already; keep them so, on stderr.
      outputError: (line, write) => write(`${line.trim().replace(/\n+/g, ' ')}${hint()}\n`),
    });
  registerServe(program);
  registerRecordCommands(program);
  registerJobCommands(program);
  registerTemplateCommands(program);
  registerAgentCommand(program);
  registerWebhookCommands(program);
  registerEnrollmentCommands(program);
  registerCloudPrntCommands(program);
  registerReleaseCommands(program);
  registerUserCommands(program);
  return program;
}

/** `shopdesk token create`: the command `argv` names, as far as the program knows it. */
export function commandPathOf(program: Command, argv: readonly string[]): string {
  const names = [program.name()];
  let command = program;
  for (const word of argv.slice(2)) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    names.push(word);
    command = sub;
  }
  return names.join(' ');
}

/**
 * Runs one command line and resolves to its exit code: 0, 2 for bad arguments (one line on
 * stderr, ending with the command whose `--help` explains, when it does), 1 for any other failure. `serve` resolves once it listens; its process goes on.
 * The tests run commands through it in their own process (test/helpers/shopdesk-cli.ts).
 */
export async function runShopdesk(argv: string[]): Promise<number> {
  const program = buildProgram(() => helpHint(commandPathOf(program, argv)));
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UsageError) {
      const hint = error.pointsToHelp ? helpHint(commandPathOf(program, argv)) : '';
      process.stderr.write(`error: ${error.message}${hint}\n`);
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
