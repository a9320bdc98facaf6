import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

/**
 * The client went away before its body ended: nobody is left to answer, and it is not a
 * fault of the server (logged once as aborted, never as a 500).
 */
export class RequestAborted extends Error {
  constructor() {
    super('the client closed the connection before the body ended');
  }
}

/**
 * The whole body did not arrive within the route's deadline (`bodyTimeoutMs`): a 408, and
 * the connection is closed after it without reading more (handle-request.ts), so a client
 * that trickles its body holds a connection slot no longer than the deadline.
 */
export class BodyTimedOut extends HttpError {
  constructor(ms: number) {
    super(
      'request_timeout',
      `The request body did not arrive within ${ms / 1000} s; send it whole, at once.`,
      { headers: { connection: 'close' } },
    );
  }
}

/**
 * Reads a JSON body within a size limit (and, when given, a deadline for all of it). No body at all reads as `undefined`, so routes
 * whose body is optional (retry, confirm) take an empty POST. A body refused before it is
 * read (too large by its Content-Length, not JSON) is left unread: the answer goes out with
 * `Connection: close` (handle-request.ts), and the rest is read and thrown away only for a
 * short while (linger.ts). `beforeReading` runs once the checks have passed and the bytes
 * are wanted (it sends `100 Continue` to a client that waits for it).
 */
export async function readJsonBody(
  request: IncomingMessage,
  limit: number,
  beforeReading?: () => void,
  deadlineMs?: number,
): Promise<unknown> {
  const bytes = await readBodyBytes(
    request,
    limit,
    refuseUnsupportedType,
    beforeReading,
    deadlineMs,
  );
  const text = bytes?.toString('utf8');
  if (bytes === undefined || text === undefined || text.trim() === '') return undefined;
  // Before the parser, which would spend a second of CPU on a 1 MiB body of `[`.
  if (nestsDeeperThan(bytes, maxBodyDepth)) {
    const message = `The body must not nest objects and arrays more than ${maxBodyDepth} levels deep.`;
    throw new HttpError('validation_failed', message, { errors: { body: [message] } });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('malformed_json');
  }
}

/**
 * Reads an HTML form's body (`application/x-www-form-urlencoded`, what Epson's printers POST:
 * docs/cloudprnt.md) as its fields, each name's last value; the same limits as a JSON body.
 */
export async function readFormBody(
  request: IncomingMessage,
  limit: number,
  beforeReading?: () => void,
  deadlineMs?: number,
): Promise<Record<string, string> | undefined> {
  const text = (
    await readBodyBytes(request, limit, refuseNotForm, beforeReading, deadlineMs)
  )?.toString('utf8');
  if (text === undefined || text.trim() === '') return undefined;
  return Object.fromEntries(new URLSearchParams(text));
}

/** The body's bytes, UTF-8 text within the limits; undefined when the request has none. */
async function readBodyBytes(
  request: IncomingMessage,
  limit: number,
  refuseType: (contentType: string) => void,
  beforeReading?: () => void,
  deadlineMs?: number,
): Promise<Buffer | undefined> {
  const declared = request.headers['content-length'];
  const hasBody =
    declared !== undefined ? declared !== '0' : 'transfer-encoding' in request.headers;
  if (!hasBody) return undefined;
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  refuseType(request.headers['content-type'] ?? '');
  // Every check before the body has passed: a client waiting for `100 Continue` gets it now.
  beforeReading?.();
  // The pipeline may call this within the request's event, before Node's parser has handed
  // over the body that came in the same packet as the headers; a microtask later it has.
  if (request.readableLength === 0 && !request.complete) await undefined;
  const bytes =
    bodyAlreadyIn(request, declared, limit) ?? (await readBytes(request, limit, deadlineMs));
  // RFC 8259 §8.1: JSON between systems is UTF-8; read otherwise, a broken byte would be
  // stored as U+FFFD without a word to the client.
  if (!isUtf8(bytes)) {
    throw new HttpError('malformed_json', 'The request body is not valid UTF-8 text.');
  }
  return bytes;
}

/** `application/x-www-form-urlencoded`, with a UTF-8 charset if any. */
function refuseNotForm(contentType: string): void {
  const [mediaType = '', ...parameters] = contentType.split(';');
  const charset = parameters.find((p) => p.trim().toLowerCase().startsWith('charset='));
  const utf8 = !charset || /^\s*charset=\s*"?utf-?8"?\s*$/i.test(charset);
  if (mediaType.trim().toLowerCase() !== 'application/x-www-form-urlencoded' || !utf8) {
    throw new HttpError(
      'unsupported_media_type',
      'The request body must be a UTF-8 form (application/x-www-form-urlencoded).',
    );
  }
}

/**
 * How deep a JSON body may nest objects and arrays. The deepest contract (a print job's
 * options, an offer's items) nests 4 levels; 64 leaves room for any JSON a client builds on
 * purpose, while nothing after the parser (the validator, the idempotency fingerprint,
 * JSON.stringify on the way to the database) ever walks a value deeper than that.
 */
export const maxBodyDepth = 64;

/**
 * Whether the JSON text nests `[` and `{` deeper than `limit`, by a loop over its bytes (no
 * recursion, whatever the depth): strings are skipped whole by `indexOf`, so a large
 * document's content costs a memchr, not a loop turn a byte. Run before the text is parsed:
 * brackets that nest too deep are refused even when the rest is no JSON at all.
 */
function nestsDeeperThan(bytes: Buffer, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x22) {
      // A string: on to the quote that ends it, one not escaped by an odd run of `\`.
      let end = i;
      for (;;) {
        end = bytes.indexOf(0x22, end + 1);
        if (end === -1) return false;
        let backslashes = 0;
        while (bytes[end - 1 - backslashes] === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = end;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** `application/json` or `application/*+json`, in UTF-8: a charset is only welcome as that. */
function refuseUnsupportedType(contentType: string): void {
  if (contentType === 'application/json') return; // What nearly every client sends.
  const [mediaType = '', ...parameters] = contentType.split(';');
  const type = mediaType.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw new HttpError('unsupported_media_type');
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2);
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw new HttpError(
        'unsupported_media_type',
        `The request body must be UTF-8 JSON; charset=${charset.slice(0, 40)} is not supported.`,
      );
    }
  }
}

/**
 * The whole body when it came in with the headers (a small request, as a claim or a confirm
 * is: one packet), taken from the stream's buffer at once: no listeners, no promise. All of
 * it is there when the stream holds as many bytes as `Content-Length` declared (Node marks
 * the message complete only later) or the message is complete. `undefined` when some of it
 * is still to come.
 */
function bodyAlreadyIn(
  request: IncomingMessage,
  declared: string | undefined,
  limit: number,
): Buffer | undefined {
  const buffered = request.readableLength;
  if (request.readableFlowing || buffered === 0 || buffered > limit) return;
  if (!request.complete && (declared === undefined || buffered !== Number(declared))) return;
  return request.read() as Buffer;
}

/**
 * The body's bytes. Events rather than `for await`: the async iterator costs a promise per
 * chunk and shows in the profile of every write. Past the limit the reading stops (the 413
 * goes out and the connection closes); a client gone mid-body is `RequestAborted`; past
 * `deadlineMs` it is `BodyTimedOut`.
 */
function readBytes(request: IncomingMessage, limit: number, deadlineMs?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const deadline =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            settle();
            request.pause();
            reject(new BodyTimedOut(deadlineMs));
          }, deadlineMs);
    const settle = () => {
      clearTimeout(deadline);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        settle();
        request.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      settle();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    // A reset connection errors the request (`aborted`, ECONNRESET) and closes it.
    const onError = () => {
      settle();
      reject(new RequestAborted());
    };
    const onClose = () => {
      settle();
      reject(new RequestAborted());
    };
    if (request.destroyed) {
      onClose();
      return;
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

function tooLarge(limit: number): HttpError {
  const size = limit < 1024 * 1024 ? `${limit / 1024} KiB` : `${limit / (1024 * 1024)} MiB`;
  return new HttpError('payload_too_large', `The request body must not be larger than ${size}.`);
}
