/**
 * A command line used wrongly: the `shopdesk` CLI prints the message as one line on stderr and
 * exits with code 2, with nothing written. The server's commands and the agent's (which the
 * Electron app runs too) throw this one class; it lives here because both may import shared/.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
