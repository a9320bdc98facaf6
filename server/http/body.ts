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
 * Reads a JSON body within a size limit. No body at all reads as `undefined`, so routes
 * whose body is optional (retry, confirm) take an empty POST. A body refused before it is
 * read (too large by its Content-Length, not JSON) is left unread: the answer goes out with
 * `Connection: close` (handle-request.ts) instead of the server reading what nobody may send.
 */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = request.headers['content-length'];
  const hasBody =
    declared !== undefined ? declared !== '0' : 'transfer-encoding' in request.headers;
  if (!hasBody) return undefined;
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  refuseUnsupportedType(request.headers['content-type'] ?? '');
  // The pipeline may call this within the request's event, before Node's parser has handed
  // over the body that came in the same packet as the headers; a microtask later it has.
  if (request.readableLength === 0 && !request.complete) await undefined;
  const bytes = bodyAlreadyIn(request, declared, limit) ?? (await readBytes(request, limit));
  // RFC 8259 §8.1: JSON between systems is UTF-8; read otherwise, a broken byte would be
  // stored as U+FFFD without a word to the client.
  if (!isUtf8(bytes)) {
    throw new HttpError('malformed_json', 'The request body is not valid UTF-8 text.');
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('malformed_json');
  }
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
 * goes out and the connection closes); a client gone mid-body is `RequestAborted`.
 */
function readBytes(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
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
  const mib = limit / (1024 * 1024);
  return new HttpError('payload_too_large', `The request body must not be larger than ${mib} MiB.`);
}
