import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { HttpError } from './errors.ts';

interface ParserError extends Error {
  code?: string;
  /** llhttp's words for what was wrong (`Content-Length can't be present with Transfer-Encoding`). */
  reason?: string;
}

/**
 * Requests that never reach the pipeline, because Node's HTTP parser refused them (a bad
 * Content-Length, both Content-Length and Transfer-Encoding) or they timed out, get the same
 * JSON error body as every other refusal, then the connection closes (Node's default is a
 * bare `400 Bad Request`). Nothing of the request is logged but the parser's error code.
 */
export function answerClientError(log: Logger, error: ParserError, socket: Duplex): void {
  // Written by hand, as Node's own handler does: there is no request or response object.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = randomUUID();
  const refusal = refusalOf(error);
  log.info(
    { req_id: requestId, status: refusal.status, code: error.code },
    'request refused by the HTTP parser',
  );
  const body = JSON.stringify(refusal.toBody());
  socket.end(
    `HTTP/1.1 ${refusal.status} ${reasonPhrases[refusal.status] ?? 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  // The client may keep sending; the socket goes once the answer is out.
  socket.once('finish', () => socket.destroy());
}

const reasonPhrases: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

function refusalOf(error: ParserError): HttpError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError('request_timeout');
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError('headers_too_large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpError('payload_too_large', 'The chunk extensions are too large.');
    default: {
      const reason = error.reason ? `: ${error.reason.replace(/[^\x20-\x7e]/g, '')}` : '';
      return new HttpError('bad_request', `The request is not valid HTTP/1.1${reason}.`);
    }
  }
}
