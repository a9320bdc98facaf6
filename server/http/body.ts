import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

/**
 * Reads a JSON body within a size limit. No body at all reads as `undefined`, so routes
 * whose body is optional (retry, confirm) take an empty POST.
 */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = request.headers['content-length'];
  const hasBody =
    declared !== undefined ? declared !== '0' : 'transfer-encoding' in request.headers;
  if (!hasBody) {
    request.resume();
    return undefined;
  }
  if (declared !== undefined && Number(declared) > limit) {
    request.resume();
    throw tooLarge(limit);
  }
  const type = request.headers['content-type'] ?? '';
  if (!isJsonType(type)) {
    request.resume();
    throw new HttpError('unsupported_media_type');
  }
  const text = await readText(request, limit);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('malformed_json');
  }
}

/**
 * The body as UTF-8 text. Events rather than `for await`: the async iterator costs a
 * promise per chunk and shows in the profile of every write. A body over the limit is
 * drained unread (the 413 goes out), and a client gone mid-body is an error.
 */
function readText(request: IncomingMessage, limit: number): Promise<string> {
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
        request.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      settle();
      resolve(
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      );
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onClose = () => {
      settle();
      reject(new Error('the client closed the connection before the body ended'));
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

function isJsonType(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

function tooLarge(limit: number): HttpError {
  const mib = limit / (1024 * 1024);
  return new HttpError('payload_too_large', `The request body must not be larger than ${mib} MiB.`);
}
