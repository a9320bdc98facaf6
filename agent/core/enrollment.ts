import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  normalizeEnrollmentCode,
  type RedeemedEnrollment,
  redeemedEnrollment,
} from '../../shared/enrollments.ts';
import { errorBody } from '../../shared/http.ts';
import { loadOrCreateIdentity } from './agent-identity.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { type BackoffPolicy, backoffDelay, parseRetryAfter, sleep } from './backoff.ts';
import { httpCall } from './http-request.ts';

/**
 * Enrolment (docs/it-guide.md, "Enrol a PC"): the agent trades a code from IT, once, for a
 * token of its own, bound to its uuid, and keeps it in its state directory (mode 0600). The
 * tray keeps it with Electron's safeStorage instead (agent/electron/main/enroll.ts).
 */

/** The token an enrolled headless agent keeps, beside its agent.json. */
export const enrolledTokenFile = (stateDir: string): string => join(stateDir, 'agent-token');

/** The server refused the code (unknown, used up, expired, revoked) or the agent: final. */
export class EnrollmentRefused extends Error {}

/** The token kept from an earlier enrolment, or null when this state has none. */
export async function readEnrolledToken(stateDir: string): Promise<string | null> {
  const file = enrolledTokenFile(stateDir);
  try {
    const info = await stat(file);
    if (!info.isFile()) return null;
    const token = (await readFile(file, 'utf8')).trim();
    return token === '' ? null : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export interface EnrollOptions {
  serverUrl: string;
  code: string;
  stateDir: string;
  hostname: string;
  /** The route names the agent will serve: the server refuses, unspent, what the code lacks. */
  routes?: string[];
  signal?: AbortSignal;
  /** Said while the server cannot be reached (it is retried until it answers). */
  onWait?: (message: string) => void;
  retry?: BackoffPolicy;
}

/**
 * Trades the code for the agent's token. The server being away (no answer, 5xx, 429) is
 * waited out with backoff: a PC set up by a script may start before its network. A refusal
 * (4xx) throws EnrollmentRefused with the server's words, which say what to do.
 */
export async function redeemEnrollmentCode(options: EnrollOptions): Promise<RedeemedEnrollment> {
  const code = normalizeEnrollmentCode(options.code);
  if (code === null) {
    throw new EnrollmentRefused(
      `"${options.code}" is not an enrolment code: it is 8 letters and digits, like K7QF-M2XD`,
    );
  }
  const identity = await loadOrCreateIdentity(options.stateDir, new Date());
  const url = `${options.serverUrl.replace(/\/+$/, '')}/api/v1/printing/enroll`;
  const body = JSON.stringify({
    code,
    uuid: identity.uuid,
    hostname: options.hostname,
    ...(options.routes && options.routes.length > 0 && { routes: options.routes }),
  });
  const retry = options.retry ?? { baseMs: 1000, maxMs: 30_000 };
  let waited = false;
  for (let attempt = 0; ; attempt++) {
    let status: number;
    let text: string;
    let retryAfter: string | string[] | undefined;
    try {
      const answer = await httpCall(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        timeoutMs: 30_000,
        ...(options.signal && { signal: options.signal }),
      });
      status = answer.status;
      retryAfter = answer.headers['retry-after'];
      text = answer.body.toString('utf8');
    } catch (error) {
      if (options.signal?.aborted) throw error;
      status = 0;
      text = (error as Error).message;
    }
    if (status === 201) {
      const redeemed = redeemedEnrollment.parse(JSON.parse(text).data);
      await writeFileAtomic(enrolledTokenFile(options.stateDir), `${redeemed.token}\n`, 0o600);
      return redeemed;
    }
    if (status >= 400 && status < 500 && status !== 429 && status !== 408) {
      throw new EnrollmentRefused(refusalOf(status, text));
    }
    if (!waited) {
      options.onWait?.(
        `cannot enrol yet (${status === 0 ? text : `HTTP ${status}`}); trying again until the server answers`,
      );
      waited = true;
    }
    const delay = parseRetryAfter(retryAfter, Date.now()) ?? backoffDelay(retry, attempt);
    await sleep(delay, options.signal);
  }
}

function refusalOf(status: number, text: string): string {
  try {
    const body = errorBody.parse(JSON.parse(text));
    return body.errors?.['code']?.[0] ?? body.errors?.['routes']?.[0] ?? body.message;
  } catch {
    return `the server answered HTTP ${status} to the enrolment`;
  }
}
