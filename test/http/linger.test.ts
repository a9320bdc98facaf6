import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openRaw, parseAnswer } from './raw-socket.ts';

/**
 * What server/http/linger.ts does after an answer given before a large body was read, pinned
 * at the socket (docs/http.md, "Answers before the body"): the client reads the whole answer
 * and then the server's FIN while it is still sending; the server goes on reading the body,
 * and closes once it has ended, without a reset. Node's `http` closes a `Connection: close`
 * socket as soon as its answer ends; a Node upgrade that changes how the answer can be held
 * open fails here.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const bodyLength = 200_000;

describe('a large body answered before it was read', () => {
  it('the answer, then the FIN; the body is still read, and the socket closes without a reset', async () => {
    const accepted = new Promise<Socket>((resolve) =>
      server.app.http.server.once('connection', resolve),
    );
    const raw = await openRaw(server.url, { allowHalfOpen: true });
    const errors: string[] = [];
    raw.socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? ''));
    const finReceived = new Promise<void>((resolve) => raw.socket.once('end', resolve));
    raw.socket.write(
      [
        'POST /api/v1/customers HTTP/1.1',
        'Host: shop',
        'Content-Type: application/json',
        `Content-Length: ${bodyLength}`,
        '',
        '',
      ].join('\r\n'),
    );
    await finReceived;
    const answer = parseAnswer(raw.received());
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
    const serverSide = await accepted;
    expect(serverSide.destroyed).toBe(false);
    const serverClosed = new Promise((resolve) => serverSide.once('close', resolve));
    raw.socket.write(Buffer.alloc(bodyLength, 0x20));
    // The server closes once the body has ended: all of it read, none of it refused.
    await serverClosed;
    expect(serverSide.bytesRead).toBeGreaterThan(bodyLength);
    raw.socket.end();
    await raw.closed;
    expect(errors).toEqual([]);
  });
});
