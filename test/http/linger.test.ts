import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRelease } from '../../server/releases/add-release.ts';
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

/**
 * Sends `head` (announcing a body of `bodyLength` bytes, none sent yet) and waits for the
 * server's FIN; the connection, what it received, and the server's side of it.
 */
async function answeredBeforeTheBody(head: string[]) {
  const accepted = new Promise<Socket>((resolve) =>
    server.app.http.server.once('connection', resolve),
  );
  const raw = await openRaw(server.url, { allowHalfOpen: true });
  const errors: string[] = [];
  raw.socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? ''));
  const finReceived = new Promise<void>((resolve) => raw.socket.once('end', resolve));
  raw.socket.write([...head, `Content-Length: ${bodyLength}`, '', ''].join('\r\n'));
  await finReceived;
  return { raw, errors, serverSide: await accepted };
}

describe('a large body answered before it was read', () => {
  it('the answer, then the FIN; the body is still read, and the socket closes without a reset', async () => {
    const { raw, errors, serverSide } = await answeredBeforeTheBody([
      'POST /api/v1/customers HTTP/1.1',
      'Host: shop',
      'Content-Type: application/json',
    ]);
    const answer = parseAnswer(raw.received());
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
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

  it('a streamed answer (an agent build) arrives whole, then the FIN, and the body is still read', async () => {
    const companyId = await server.createCompany('Linger Co');
    const token = await server.token(companyId, ['printing.agent']);
    // Text, so that the raw connection's text holds it byte for byte.
    const build = Buffer.alloc(300_000, 'a');
    await addRelease(
      server.app.services.storage,
      {
        version: '9.0.0',
        platform: 'linux',
        channel: 'stable',
        rollout: 100,
        fileName: 'ShopDesk-Print-Agent-9.0.0.AppImage',
        content: (async function* () {
          yield build;
        })(),
      },
      new Date(),
    );
    const { raw, errors, serverSide } = await answeredBeforeTheBody([
      'GET /api/v1/printing/updates/stable/ShopDesk-Print-Agent-9.0.0.AppImage HTTP/1.1',
      'Host: shop',
      `Authorization: Bearer ${token}`,
    ]);
    const text = raw.received();
    const headEnd = text.indexOf('\r\n\r\n');
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
    expect(text.slice(0, headEnd).toLowerCase()).toContain('connection: close');
    // The whole build, before the FIN.
    expect(text.slice(headEnd + 4)).toBe(build.toString());
    expect(serverSide.destroyed).toBe(false);
    const serverClosed = new Promise((resolve) => serverSide.once('close', resolve));
    raw.socket.write(Buffer.alloc(bodyLength, 0x20));
    await serverClosed;
    raw.socket.end();
    await raw.closed;
    expect(errors).toEqual([]);
  });
});
