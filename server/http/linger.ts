import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { defaultLingerLimits, type LingerLimits } from '../config.ts';

/**
 * An answer has gone (or is going) out before the request's body was read: a refusal, or a
 * route that reads no body. Closing the socket at once would lose the answer: the client is
 * still writing, the kernel answers its bytes with a reset, and the reset throws away the
 * answer the client had not read yet (`EPIPE`, `ECONNRESET`, curl's exit 55). So the rest of
 * the body is read and thrown away, within `limits`:
 *
 * - `closing` (the answer says `Connection: close`): when Node would close the socket after
 *   the answer, it only half-closes it (FIN: the client learns the answer is complete) and
 *   the socket closes once the body has ended or the client has closed its side;
 * - otherwise (a small declared body that Node drains to keep the connection), the same
 *   bounds apply to the drain: a body that trickles in is cut, not waited for until the
 *   request timeout.
 *
 * Past `idleMs` without a byte, `totalMs` in all or `maxBytes` read, the socket is destroyed.
 */
export function lingerOnUnreadBody(
  request: IncomingMessage,
  closing: boolean,
  limits: LingerLimits = defaultLingerLimits,
): void {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed) return;
  let read = 0;
  let bodyDone = false;
  let answered = false;
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
    if (closing && answered) originalDestroySoon.call(socket);
  };
  const originalDestroySoon = socket.destroySoon ?? (() => socket.end());
  if (closing) {
    // Node calls this once the answer is written (`res._last`, Connection: close).
    socket.destroySoon = () => {
      socket.destroySoon = originalDestroySoon;
      answered = true;
      if (bodyDone) originalDestroySoon.call(socket);
      else socket.end();
    };
  }
  request.on('data', onData);
  request.once('end', onBodyDone);
  request.once('close', onBodyDone);
  request.once('error', onBodyDone);
  socket.once('close', stop);
  // The body reader may have paused the request when it stopped at the size limit.
  request.resume();
}
