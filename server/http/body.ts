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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      request.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  const text =
    chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('malformed_json');
  }
}

function isJsonType(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
}

function tooLarge(limit: number): HttpError {
  const mib = limit / (1024 * 1024);
  return new HttpError('payload_too_large', `The request body must not be larger than ${mib} MiB.`);
}
