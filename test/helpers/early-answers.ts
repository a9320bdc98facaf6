import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Clients that send a body the server answers before reading (a 401, a 413): Node's fetch
 * (undici) and curl, with and without `Expect: 100-continue`, with a body of known length or
 * streamed (chunked). Each try says what the client saw: the status, or its error. Used by
 * test/http/early-answers.test.ts and bench/early-answers.ts (docs/http.md).
 */
export type Client = 'fetch' | 'curl' | 'curl-no-expect';
export const clients: readonly Client[] = ['fetch', 'curl', 'curl-no-expect'];

export interface EarlyTry {
  client: Client;
  url: string;
  bytes: number;
  /** Chunked, no Content-Length: the 413 comes while the body is read. */
  streamed: boolean;
  token: string;
}

/** What the client saw: `"413"`, or an error (`"error EPIPE"`, `"curl exit 55 (413)"`). */
export type Outcome = string;

const bodies = new Map<number, { buffer: Buffer; file: string }>();
let folder: string | undefined;

/** A JSON-looking body of `bytes` bytes, in memory and in a file (for curl). */
function bodyOf(bytes: number): { buffer: Buffer; file: string } {
  const known = bodies.get(bytes);
  if (known) return known;
  folder ??= mkdtempSync(join(tmpdir(), 'early-answers-'));
  const buffer = Buffer.alloc(bytes, 0x20);
  buffer.write('{"a":"');
  buffer.write('"}', bytes - 2);
  const file = join(folder, `${bytes}.json`);
  writeFileSync(file, buffer);
  const made = { buffer, file };
  bodies.set(bytes, made);
  return made;
}

export function removeBodies(): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
  bodies.clear();
}

const MiB = 1024 * 1024;

/**
 * 401: a bad token on `POST /printing/jobs`. 413: over the route's limit, 1 MiB on
 * `POST /customers` (the 1 and 8 MiB bodies, 1 KiB over) and 16 MiB on `POST /printing/jobs`.
 */
export function targetOf(
  { status, mib }: { status: 401 | 413; mib: number },
  api: string,
): { url: string; bytes: number } {
  if (status === 401) return { url: `${api}/printing/jobs`, bytes: mib * MiB };
  const path = mib < 16 ? '/customers' : '/printing/jobs';
  return { url: `${api}${path}`, bytes: mib * MiB + 1024 };
}

export function tryOnce(attempt: EarlyTry): Promise<Outcome> {
  return attempt.client === 'fetch' ? tryFetch(attempt) : tryCurl(attempt);
}

async function tryFetch({ url, bytes, streamed, token }: EarlyTry): Promise<Outcome> {
  const { buffer } = bodyOf(bytes);
  const body = streamed
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < buffer.length; at += 256 * 1024) {
            controller.enqueue(buffer.subarray(at, at + 256 * 1024));
          }
          controller.close();
        },
      })
    : buffer;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    await response.arrayBuffer();
    return String(response.status);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `error ${cause?.code ?? cause?.message ?? (error as Error).message}`;
  }
}

function tryCurl({ client, url, bytes, streamed, token }: EarlyTry): Promise<Outcome> {
  const { file } = bodyOf(bytes);
  const args = [
    '-sS',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-X',
    'POST',
    '-H',
    `Authorization: Bearer ${token}`,
    '-H',
    'Content-Type: application/json',
    '--data-binary',
    `@${file}`,
  ];
  if (streamed) args.push('-H', 'Transfer-Encoding: chunked');
  // curl sends `Expect: 100-continue` itself for a body over 1 MiB (or any chunked one);
  // an empty header turns it off, and `-H Expect: 100-continue` asks for it on every size.
  args.push('-H', client === 'curl' ? 'Expect: 100-continue' : 'Expect:');
  args.push(url);
  return new Promise((resolve) => {
    execFile('curl', args, { timeout: 30_000 }, (error, stdout) => {
      const status = stdout.trim();
      if (!error) resolve(status);
      else resolve(`curl exit ${(error as { code?: number }).code ?? '?'} (${status})`);
    });
  });
}
