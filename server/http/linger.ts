import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultLingerLimits, type LingerLimits } from '../config.ts';

/** Ends an answer whose status, headers and body are written: `last` is its last piece. */
export type EndAnswer = (response: ServerResponse, last?: string | Buffer) => void;

/** The ordinary end: the answer ends now. */
export const endAnswerNow: EndAnswer = (response, last) => {
  response.end(last);
};

/**
 * An answer is going out before the request's body was read: a refusal, or a route that
 * reads no body. Closing the socket at once would lose the answer: the client is still
 * writing, the kernel answers its bytes with a reset, and the reset throws away the answer
 * the client had not read yet (`EPIPE`, `ECONNRESET`, curl's exit 55). So the rest of the
 * body is read and thrown away, within `limits`:
 *
 * - `closing` (the answer says `Connection: close`): the answer's bytes go out at once, then
 *   the server half-closes the socket (`socket.end()`: its FIN tells the client the answer
 *   is complete), and the answer is ended (the returned `EndAnswer`) only once the body has
 *   ended or the client has closed its side. Node closes a `Connection: close` socket
 *   outright when its answer ends; ending it after the body keeps the socket open for
 *   reading meanwhile, through the public API of `http` and `net` alone;
 * - otherwise (a small declared body that Node drains to keep the connection), the same
 *   bounds apply to the drain: a body that trickles in is cut, not waited for until the
 *   request timeout. The answer ends at once.
 *
 * Past `idleMs` without a byte, `totalMs` in all or `maxBytes` read, the socket is destroyed.
 */
export function lingerOnUnreadBody(
  request: IncomingMessage,
  closing: boolean,
  limits: LingerLimits = defaultLingerLimits,
): EndAnswer {
  const socket = request.socket;
  if (!socket || socket.destroyed) return endAnswerNow;
  let read = 0;
  let bodyDone = false;
  /** The answer written and waiting for the body's end to be ended. */
  let held: ServerResponse | undefined;
  const close = () => {
    if (!socket.destroyed) socket.destroy();
  };
  const total = setTimeout(close, limits.totalMs);
  const idle = setTimeout(close, limits.idleMs);
  total.unref();
  idle.unref();
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.maxBytes) close();
    else idle.refresh();
  };
  const stop = () => {
    clearTimeout(total);
    clearTimeout(idle);
    request.off('data', onData);
    request.off('end', onBodyDone);
    request.off('close', onBodyDone);
    request.off('error', onBodyDone);
    socket.off('close', stop);
  };
  // The body ended (or the request was torn down): nothing more to wait for.
  const onBodyDone = () => {
    bodyDone = true;
    stop();
    held?.end();
    held = undefined;
  };
  request.on('data', onData);
  request.once('end', onBodyDone);
  request.once('close', onBodyDone);
  request.once('error', onBodyDone);
  socket.once('close', stop);
  // The body reader may have paused the request when it stopped at the size limit.
  request.resume();
  if (!closing) return endAnswerNow;
  return (response, last) => {
    if (bodyDone || socket.destroyed) {
      response.end(last);
      return;
    }
    if (last !== undefined) response.write(last);
    else response.flushHeaders();
    // After the answer's bytes, in order: the client reads the whole answer, then the FIN.
    socket.end();
    held = response;
  };
}

/** Up to this much, a body left unread is read and dropped by Node to keep the connection. */
const smallUnreadBody = 64 * 1024;

/** The answer goes out before the request's body has all come in (a refusal, mostly). */
export function bodyUnread(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const declared = request.headers['content-length'];
  if (declared === undefined) return 'transfer-encoding' in request.headers;
  return declared !== '0';
}

/**
 * A body refused before it was read (401, 404, 413, 415, …) of over 64 KiB, or of a length
 * nobody said (chunked), closes the connection after the answer: reading all of it could cost
 * gigabytes (`Content-Length: 10000000000`). It is still read for a short while (linger.ts),
 * so that the client sees the answer. A small declared body is drained by Node to keep the
 * connection, within the same bounds.
 */
export function largeOrUnknown(request: IncomingMessage): boolean {
  const declared = request.headers['content-length'];
  if (declared === undefined) return true;
  return Number(declared) > smallUnreadBody;
}
