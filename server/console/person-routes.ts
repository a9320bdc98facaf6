/** What the console's route groups share: the person behind a request, the cookie, sign-in tries. */
import type { IncomingMessage } from 'node:http';
import type { ConsoleAbility, ConsoleSessionRecord } from '../../shared/console.ts';
import { HttpError } from '../http/errors.ts';
import { linkOrigin } from '../http/public-origin.ts';
import type { Services } from '../services.ts';
import type { Caller, ConsoleCaller } from '../tokens/index.ts';
import { abilitiesOf, grantable, permissionsOf } from './roles.ts';
import { sessionCookie } from './session-caller.ts';

export const tag = 'Console';

/**
 * Sign-in tries a minute per account, and per client address (the shared rate limiter's
 * store: every instance counts together). An address gets more: a shop's tills and an
 * office sign in from behind one address.
 */
export const signInTriesPerMinute = 10;
export const signInTriesPerAddress = 100;

/** The person behind a console request; a bearer token is no person: 403. */
export function personOf(caller: Caller, ability?: ConsoleAbility): ConsoleCaller {
  const person = caller.session;
  if (!person) {
    throw new HttpError('forbidden', 'This route is for people signed in to the console.');
  }
  if (ability && !abilitiesOf(person.role).includes(ability)) {
    throw new HttpError('forbidden', `The role ${person.role} may not do this (${ability}).`);
  }
  return person;
}

export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  return (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

/** Secure whenever the browser reached us over TLS (directly, or through a trusted proxy). */
export function cookieHeader(
  request: IncomingMessage,
  services: Services,
  value: string,
  maxAge: number,
) {
  const links = { publicUrl: services.config.publicUrl, trustProxy: services.config.trustProxy };
  const tls = 'encrypted' in request.socket || linkOrigin(links, request).startsWith('https://');
  const secure = tls ? '; Secure' : '';
  return `${sessionCookie}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}

export function sessionRecord(
  caller: Caller,
  person: ConsoleCaller,
  createdAt: string,
): ConsoleSessionRecord {
  return {
    user: {
      id: person.userId,
      email: person.email,
      role: person.role,
      active: true,
      created_at: createdAt,
    },
    company: { id: caller.companyId, name: caller.companyName },
    permissions: [...permissionsOf(person.role)],
    abilities: [...abilitiesOf(person.role)],
    grantable: [...grantable(person.role)],
  };
}

export async function takeTry(
  services: Services,
  kind: 'accounts' | 'addresses',
  key: string,
): Promise<void> {
  const tries = services.signInTries?.[kind];
  if (!tries) return;
  const quota = await tries.take(key);
  if (!quota.allowed) {
    throw new HttpError(
      'rate_limited',
      `Too many sign-in attempts; wait ${quota.resetInSeconds} s and try again.`,
      { headers: { 'retry-after': String(quota.resetInSeconds) } },
    );
  }
}
