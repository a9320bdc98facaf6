/**
 * A command line used wrongly: the `shopdesk` CLI prints the message as one line on stderr and
 * exits with code 2, with nothing written. The server's commands and the agent's (which the
 * Electron app runs too) throw this one class; it lives here because both may import shared/.
 *
 * `pointsToHelp`: whether the command's `--help` explains the fix, so the line ends by naming
 * it. True for how the command was written (an option missing, two that exclude each other);
 * false where `--help` says nothing of the problem: a record or a database that is not there,
 * a port taken, the problems of a configuration file (each its own line, naming the file).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly pointsToHelp: boolean;

  constructor(message: string, options: { pointsToHelp?: boolean } = {}) {
    super(message);
    this.pointsToHelp = options.pointsToHelp ?? true;
  }
}

/** What a usage error's line ends with: the command whose `--help` lists its options. */
export const helpHint = (command: string): string => ` (see: ${command} --help)`;
