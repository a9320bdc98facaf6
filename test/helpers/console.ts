import { buildConsole, isConsoleBuilt } from '../../console/build.ts';
import { createUser } from '../../server/console/create-user.ts';
import { hashPassword } from '../../server/console/password-hash.ts';
import { writePassword } from '../../server/console/set-password.ts';
import type { ConsoleRole } from '../../shared/console.ts';
import type { Answer, TestServer } from './server.ts';

/** The console as `shopdesk serve` builds it: built here when missing or older than its sources. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (!isConsoleBuilt()) await buildConsole();
}

export interface ConsoleUser {
  id: number;
  email: string;
  password: string;
}

let made = 0;

/**
 * Every user made here has the same password, hashed once a process by the server's own
 * hashPassword (server/console/password-hash.ts) at a cost of N=2^10 instead of the server's
 * 2^15: the hash carries its parameters, so a sign-in checks it by the same path, in ~2 ms of
 * CPU instead of ~60 (the suite signs in a few hundred times). Passwords set through the
 * console, the API or `shopdesk user`, and the decoy spent on an unknown address, are at the
 * server's cost, as everywhere.
 */
const password = 'correct horse battery staple';
const testCost = { N: 2 ** 10, r: 8, p: 1 };
let passwordHash: Promise<string> | undefined;

/** A console user of the company with a password set. */
export async function consoleUser(
  server: TestServer,
  companyId: number,
  role: ConsoleRole,
): Promise<ConsoleUser> {
  const email = `${role}-${++made}-${process.pid}@shop.example`;
  const { db } = server.app.services.storage;
  const { user } = await createUser(db, { companyId, email, role });
  passwordHash ??= hashPassword(password, testCost);
  await writePassword(db, user.id, await passwordHash);
  return { id: user.id, email, password };
}

/**
 * A request as the console's page makes it: the session cookie, and `Origin` of the
 * server itself on everything (`origin: null` leaves it out; a string sends that one).
 */
export async function consoleRequest(
  server: TestServer,
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown; origin?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.cookie) headers.cookie = options.cookie;
  const origin = options.origin === undefined ? server.url : options.origin;
  if (origin !== null) headers.origin = origin;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.api}${path}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return {
    status: response.status,
    headers: response.headers,
    body: json && text ? JSON.parse(text) : text,
  };
}

/** Signs in; the session's cookie (`shopdesk_session=…`). */
export async function signIn(
  server: TestServer,
  user: { email: string; password: string },
): Promise<string> {
  const answer = await consoleRequest(server, 'POST', '/console/session', {
    body: { email: user.email, password: user.password },
  });
  if (answer.status !== 200)
    throw new Error(`sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.headers.get('set-cookie')!.split(';')[0]!;
}

/**
 * A Server-Sent Events stream read by `change` event. `nextChange(ms)` gives up after `ms`
 * with `undefined`: what a test that no change must come waits for.
 */
export async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  const take = (): string | undefined => {
    const match = /id: (\S+)\nevent: change\n/.exec(text);
    if (!match) return undefined;
    text = text.slice(match.index + match[0].length);
    return match[1]!;
  };
  function nextChange(): Promise<string>;
  function nextChange(withinMs: number): Promise<string | undefined>;
  async function nextChange(withinMs?: number): Promise<string | undefined> {
    const deadline = withinMs === undefined ? undefined : Date.now() + withinMs;
    for (;;) {
      const change = take();
      if (change !== undefined) return change;
      // A read left pending by a timeout is the next one's: no bytes are lost.
      if (!reading) {
        reading = reader.read();
        // Closed while a read waits: that read fails, and nobody is left to hear it.
        reading.catch(() => {});
      }
      const timeLeft = deadline === undefined ? undefined : deadline - Date.now();
      if (timeLeft !== undefined && timeLeft <= 0) return undefined;
      const result = await (timeLeft === undefined
        ? reading
        : Promise.race([reading, new Promise<'late'>((r) => setTimeout(r, timeLeft, 'late'))]));
      if (result === 'late') return undefined;
      reading = undefined;
      if (result.done) throw new Error('the stream ended');
      text += decoder.decode(result.value);
    }
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    nextChange,
    close: () => controller.abort(),
  };
}
