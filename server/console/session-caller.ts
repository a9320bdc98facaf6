import type { IncomingMessage } from 'node:http';
import type { Storage } from '../storage/database.ts';
import type { Clock } from '../time.ts';
import type { Caller } from '../tokens/index.ts';
import { readSession } from './read-session.ts';
import { permissionsOf } from './roles.ts';

/** The console's session cookie. `__Host-` is not used: it demands Secure, and plain-HTTP on a LAN is allowed. */
export const sessionCookie = 'shopdesk_session';

/** The session cookie's value a request carries, if any. */
export function sessionSecretOf(request: IncomingMessage): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === sessionCookie) {
      const value = part.slice(at + 1).trim();
      return /^[\w-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * A signed-in person as the request pipeline sees a caller: the permissions of their role,
 * so that every route checks them exactly as it checks a token's. The console's session hook
 * (session-hook.ts) asks it for the caller of a request that carries the cookie.
 */
export class SessionAuthenticator {
  readonly #storage: Storage;
  readonly #clock: Clock;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  secretOf(request: IncomingMessage): string | undefined {
    return sessionSecretOf(request);
  }

  async authenticate(secret: string): Promise<Caller | null> {
    const session = await readSession(this.#storage.db, secret, this.#clock.now());
    if (!session) return null;
    return {
      tokenId: 0,
      tokenName: `console: ${session.email}`,
      companyId: session.companyId,
      companyName: session.companyName,
      permissions: new Set(permissionsOf(session.role)),
      expiresAt: null,
      agentUuid: null,
      session: {
        sessionId: session.id,
        userId: session.userId,
        email: session.email,
        role: session.role,
      },
    };
  }
}
