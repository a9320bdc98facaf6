import type { IncomingMessage } from 'node:http';
import type { Caller } from '../tokens/index.ts';

/**
 * What the request pipeline needs of the console's sessions: the session a request's
 * cookie names, and who it is. The console implements it (server/console/session-caller.ts)
 * and the wiring hands it over, so the HTTP core imports no console code.
 */
export interface SessionCallers {
  /** The session secret the request's cookie carries, if any. */
  secretOf(request: IncomingMessage): string | undefined;
  /** The signed-in person as a caller, or null when the session is unknown or ended. */
  authenticate(secret: string): Promise<Caller | null>;
}
