import type { IncomingMessage } from 'node:http';
import type { Transaction } from 'kysely';
import {
  fingerprintOf,
  type IdempotencyService,
  type KeyScope,
  type RequestPayload,
  type StoredAnswer,
} from '../idempotency/index.ts';
import type { Database } from '../storage/schema.ts';
import { HttpError } from './errors.ts';
import type { Reply } from './route.ts';

export const idempotencyKeyHeader = 'idempotency-key';

/** 1–255 printable ASCII characters (space to tilde). */
const keyPattern = /^[\x20-\x7e]{1,255}$/;

/**
 * The request's `Idempotency-Key`, or undefined when it sends none. The draft standard
 * (draft-ietf-httpapi-idempotency-key-header-07 §2) writes the key as a structured-field
 * string, `"8e03978e…"`; the bare form (`8e03978e…`) that most clients send is the same key.
 */
export function idempotencyKeyOf(request: IncomingMessage): string | undefined {
  const header = request.headers[idempotencyKeyHeader];
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header.join(', ') : header;
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(raw);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : raw;
  if (!keyPattern.test(key)) {
    throw new HttpError(
      'bad_request',
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
    );
  }
  return key;
}

/** Headers of a first answer that its replays carry too; the rest are per request. */
const replayedHeaders = ['content-type', 'location'];

/**
 * The reply serialized once: the text sent the first time, and the same bytes stored for
 * replays. (The first answer goes out as that text, not as the stored Buffer: node writes a
 * string body with its headers in one write, a Buffer with a slower writev — measured at
 * most of a key's cost before.)
 */
function serialized(reply: Reply): { sent: string | Buffer | undefined; stored: StoredAnswer } {
  const headers: Record<string, string> = {};
  for (const name of replayedHeaders) {
    const value = reply.headers?.[name];
    if (value !== undefined) headers[name] = value;
  }
  if (reply.body === undefined || reply.status === 204) {
    return { sent: undefined, stored: { status: reply.status, body: null, headers } };
  }
  headers['content-type'] ??= 'application/json; charset=utf-8';
  const sent = Buffer.isBuffer(reply.body)
    ? reply.body
    : typeof reply.body === 'string'
      ? reply.body
      : JSON.stringify(reply.body);
  const body = Buffer.isBuffer(sent) ? sent : Buffer.from(sent);
  return { sent, stored: { status: reply.status, body, headers } };
}

/**
 * Runs a keyed request's handler through the idempotency service (docs/http.md): a
 * successful answer (2xx) is stored with the write and sent as stored; a failure stores
 * nothing. A replay carries `Idempotent-Replayed: true`.
 */
export async function idempotentReply(
  idempotency: IdempotencyService,
  scope: KeyScope,
  payload: RequestPayload,
  handle: (trx: Transaction<Database>) => Promise<Reply>,
): Promise<Reply> {
  const outcome = await idempotency.once(scope, fingerprintOf(payload), async (trx) => {
    const reply = await handle(trx);
    if (reply.status < 200 || reply.status >= 300) return { answer: reply, stored: null };
    const { sent, stored } = serialized(reply);
    const answer: Reply = {
      status: stored.status,
      headers: { ...reply.headers, ...stored.headers },
      ...(sent !== undefined && { body: sent }),
    };
    return { answer, stored };
  });
  switch (outcome.kind) {
    case 'ran':
      return outcome.answer;
    case 'replayed':
      return {
        status: outcome.stored.status,
        headers: { ...outcome.stored.headers, 'idempotent-replayed': 'true' },
        ...(outcome.stored.body !== null && { body: outcome.stored.body }),
      };
    case 'in_flight':
      throw new HttpError(
        'idempotency_key_in_flight',
        'A request with this Idempotency-Key is still being processed; retry after it has finished.',
        { headers: { 'retry-after': '1' } },
      );
    case 'reused':
      throw new HttpError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with another request; send a new key for a new request.',
      );
  }
}
