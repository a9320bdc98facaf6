import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, startTestServer, type TestServer } from '../helpers/server.ts';
import { openRaw, parseAnswer, type RawConnection } from './raw-socket.ts';

/**
 * The HTTP edge (docs/security.md): a body nobody may send is not read, the parser's
 * refusals and the timeouts answer in JSON, connections are bounded, and a client that
 * leaves mid-body is no fault of the server.
 */

let server: TestServer;
let logs: ReturnType<typeof captureLogs>;
let token: string;
const serverSockets: Socket[] = [];

beforeAll(async () => {
  logs = captureLogs('info');
  server = await startTestServer({ log: logs.log });
  server.app.http.server.on('connection', (socket) => serverSockets.push(socket));
  token = await server.token(await server.createCompany('Edge Co'), '*');
});
afterAll(() => server.close());

const headOf = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

/** Writes zeros as fast as the connection takes them until it closes or `ms` pass. */
async function floodBody(raw: RawConnection, ms: number): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024);
  const until = performance.now() + ms;
  while (!raw.socket.destroyed && raw.socket.writable && performance.now() < until) {
    if (!raw.socket.write(chunk)) {
      await Promise.race([
        new Promise((resolve) => raw.socket.once('drain', resolve)),
        raw.closed,
        new Promise((resolve) => setTimeout(resolve, 50)),
      ]);
    }
  }
}

describe('a body that nobody may send is not read', () => {
  it.each<[string, number, string[], number?, string?]>([
    ['no token (401)', 401, []],
    ['a body over the limit (413)', 413, ['Authorization: Bearer TOKEN']],
    // Under the size limit, so that the media type is what refuses it.
    ['a body that is not JSON (415)', 415, ['Authorization: Bearer TOKEN'], 900_000, 'text/csv'],
    ['an unknown path (404)', 404, [], undefined, undefined, '/api/v1/nowhere'],
  ] as [string, number, string[], number?, string?][])(
    '%s: the answer says Connection: close, and the server closes',
    async (_what, status, extra, length = 10_000_000_000, type = 'application/json', path = '/api/v1/customers') => {
      const seen = serverSockets.length;
      const raw = await openRaw(server.url);
      raw.socket.write(
        headOf([
          `POST ${path} HTTP/1.1`,
          'Host: shop',
          `Content-Type: ${type}`,
          ...extra.map((line) => line.replace('TOKEN', token)),
          `Content-Length: ${length}`,
        ]),
      );
      await floodBody(raw, 3000);
      const closedAfterMs = await raw.closed;
      const answer = parseAnswer(raw.received());
      expect(answer.status).toBe(status);
      expect(answer.headers.connection).toBe('close');
      expect(answer.body).toMatchObject({ success: false });
      // Read: the headers and what sat in the first buffers, not the 10 GB announced.
      const serverSide = serverSockets[seen]!;
      console.log(
        `${status}: client wrote ${(raw.written() / 1024).toFixed(0)} KiB, server read ${(serverSide.bytesRead / 1024).toFixed(0)} KiB, closed after ${closedAfterMs.toFixed(0)} ms`,
      );
      expect(serverSide.bytesRead).toBeLessThan(4 * 1024 * 1024);
      expect(closedAfterMs).toBeLessThan(2900);
    },
  );

  it('a small body left unread (up to 64 KiB) is drained, and the connection kept', async () => {
    const raw = await openRaw(server.url);
    raw.socket.write(
      `${headOf(['POST /api/v1/customers HTTP/1.1', 'Host: shop', 'Content-Type: application/json', 'Content-Length: 2'])}{}`,
    );
    const answer = parseAnswer(await raw.waitFor('}'));
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('keep-alive');
    raw.socket.destroy();
  });
});

describe("requests Node's HTTP parser refuses get the JSON error body", () => {
  it.each<[string, number, string[], string]>([
    ['a Content-Length that is no number', 400, ['Content-Length: abc'], 'bad_request'],
    [
      'two different Content-Lengths',
      400,
      ['Content-Length: 1', 'Content-Length: 2'],
      'bad_request',
    ],
    // RFC 9112 §6.1: a sender must not send both; a server may reject the request.
    [
      'Content-Length and Transfer-Encoding',
      400,
      ['Content-Length: 5', 'Transfer-Encoding: chunked'],
      'bad_request',
    ],
    ['headers over 16 KiB', 431, [`X-Padding: ${'a'.repeat(20 * 1024)}`], 'headers_too_large'],
  ])('%s → %i', async (_what, status, extra, code) => {
    const raw = await openRaw(server.url);
    raw.socket.write(headOf(['POST /api/v1/customers HTTP/1.1', 'Host: shop', ...extra]));
    await raw.closed;
    const answer = parseAnswer(raw.received());
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toMatchObject({ success: false, code });
    expect(answer.body.message.length).toBeGreaterThan(0);
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs the refusal at info with the parser code, nothing of the request', async () => {
    const raw = await openRaw(server.url);
    raw.socket.write(
      headOf([
        'GET /api/v1/customers HTTP/1.1',
        'Host: shop',
        `Authorization: Bearer ${token}`,
        'Content-Length: x',
      ]),
    );
    await raw.closed;
    const line = logs
      .text()
      .split('\n')
      .filter((entry) => entry.includes('refused by the HTTP parser'))
      .at(-1)!;
    expect(JSON.parse(line)).toMatchObject({
      level: 30,
      status: 400,
      code: 'HPE_INVALID_CONTENT_LENGTH',
    });
    expect(logs.text()).not.toContain(token);
  });
});

describe('two Authorization headers', () => {
  it('are refused with 400, whichever comes first', async () => {
    for (const order of [
      [`Bearer ${token}`, 'Bearer sd_unknown'],
      ['Bearer sd_unknown', `Bearer ${token}`],
    ]) {
      const raw = await openRaw(server.url);
      raw.socket.write(
        headOf([
          'GET /api/v1/customers HTTP/1.1',
          'Host: shop',
          ...order.map((value) => `Authorization: ${value}`),
        ]),
      );
      const answer = parseAnswer(await raw.waitFor('}'));
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        success: false,
        message: 'Send one Authorization header, not several.',
        code: 'bad_request',
      });
      raw.socket.destroy();
    }
  });

  it('while one is enough', async () => {
    expect((await server.request('GET', '/customers', { token })).status).toBe(200);
  });
});

describe('a client that leaves mid-body', () => {
  it('is logged once, at info, as aborted: no error, no 500', async () => {
    const raw = await openRaw(server.url);
    raw.socket.write(
      `${headOf(['POST /api/v1/customers HTTP/1.1', 'Host: shop', 'X-Request-Id: leaves-mid-body', `Authorization: Bearer ${token}`, 'Content-Type: application/json', 'Content-Length: 1000'])}{"name": "Half`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    raw.socket.destroy();
    const deadline = performance.now() + 2000;
    while (!logs.text().includes('"req_id":"leaves-mid-body"') && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = logs
      .text()
      .split('\n')
      .filter((line) => line.includes('"req_id":"leaves-mid-body"'))
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'request aborted by the client', aborted: true }),
    ]);
    expect(lines[0].status).toBeUndefined();
    expect(logs.text()).not.toContain('unexpected error');
  });
});

describe('personal data in paths is masked in the log', () => {
  it.each([
    ['/customers/by-document/12345678901', '/api/v1/customers/by-document/***'],
    ['/customers/by-code/ana%40example.com', '/api/v1/customers/by-code/***'],
    // No route: nothing says what the value is, so a segment of 8+ digits is masked.
    ['/customer/by-document/123.456.789-01', '/api/v1/customer/by-document/***'],
    ['/customers/by-documents/12345678901/x', '/api/v1/customers/by-documents/***/x'],
    // Catalogue codes and ids are no one's personal data.
    ['/products/by-code/SKU-12345678', '/api/v1/products/by-code/SKU-12345678'],
    ['/customers/123', '/api/v1/customers/123'],
  ])('GET %s is logged as %s', async (path, logged) => {
    const requestId = `mask-${Math.random().toString(36).slice(2)}`;
    await server.request('GET', path, { token, headers: { 'x-request-id': requestId } });
    const line = logs
      .text()
      .split('\n')
      .find((entry) => entry.includes(`"req_id":"${requestId}"`))!;
    expect(JSON.parse(line).path).toBe(logged);
  });
});

describe('timeouts and the connection limit', () => {
  let limited: TestServer;
  const limitedLogs = captureLogs('info');
  beforeAll(async () => {
    limited = await startTestServer({
      log: limitedLogs.log,
      config: {
        http: {
          maxConnections: 3,
          headersTimeoutMs: 500,
          requestTimeoutMs: 1500,
          keepAliveTimeoutMs: 300,
          linger: { idleMs: 300, totalMs: 1000, maxBytes: 1024 * 1024 },
        },
      },
    });
  });
  afterAll(() => limited.close());

  describe('a client that goes on sending after its answer (it keeps its side open)', () => {
    const refusedUpload = async () => {
      const raw = await openRaw(limited.url, { allowHalfOpen: true });
      raw.socket.write(
        headOf([
          'POST /api/v1/customers HTTP/1.1',
          'Host: shop',
          'Content-Type: application/json',
          'Content-Length: 10000000000',
        ]),
      );
      return raw;
    };

    it('is read for totalMs at most (1 s here), then cut', async () => {
      const raw = await refusedUpload();
      const timer = setInterval(() => raw.socket.write(' '), 100);
      const closedAfterMs = await raw.closed;
      clearInterval(timer);
      expect(parseAnswer(raw.received()).status).toBe(401);
      expect(closedAfterMs).toBeGreaterThanOrEqual(950);
      expect(closedAfterMs).toBeLessThan(2000);
    });

    it('is cut after idleMs without a byte (0.3 s here)', async () => {
      // The server's side: a client that sends nothing more notices the close only when it
      // writes again.
      const serverSide = new Promise<number>((resolve) =>
        limited.app.http.server.once('connection', (socket: Socket) => {
          const opened = performance.now();
          socket.once('close', () => resolve(performance.now() - opened));
        }),
      );
      const raw = await refusedUpload();
      raw.socket.write(' ');
      const closedAfterMs = await serverSide;
      expect(parseAnswer(await raw.waitFor('}')).status).toBe(401);
      expect(closedAfterMs).toBeGreaterThanOrEqual(250);
      expect(closedAfterMs).toBeLessThan(900);
      raw.socket.destroy();
    });

    it('is cut after maxBytes read (1 MiB here)', async () => {
      const seen = serverSockets.length;
      limited.app.http.server.once('connection', (socket) => serverSockets.push(socket));
      const raw = await refusedUpload();
      await floodBody(raw, 3000);
      const closedAfterMs = await raw.closed;
      expect(parseAnswer(raw.received()).status).toBe(401);
      expect(closedAfterMs).toBeLessThan(900);
      expect(serverSockets[seen]!.bytesRead).toBeLessThan(3 * 1024 * 1024);
    });
  });

  it('headers that trickle in are cut after the headers timeout with a JSON 408', async () => {
    const raw = await openRaw(limited.url);
    raw.socket.write('GET /api/v1/health HTTP/1.1\r\nHost: shop\r\n');
    const timer = setInterval(() => raw.socket.write('X-Slow: 1\r\n'), 100);
    const closedAfterMs = await raw.closed;
    clearInterval(timer);
    const answer = parseAnswer(raw.received());
    console.log(`slow headers (limit 500 ms): closed after ${closedAfterMs.toFixed(0)} ms`);
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ success: false, code: 'request_timeout' });
    // The limit plus Node's check interval (1 s).
    expect(closedAfterMs).toBeGreaterThanOrEqual(450);
    expect(closedAfterMs).toBeLessThan(2500);
  });

  it('a body that trickles in is cut after the request timeout', async () => {
    const secret = await limited.token(await limited.createCompany(), '*');
    const raw = await openRaw(limited.url);
    raw.socket.write(
      headOf([
        'POST /api/v1/customers HTTP/1.1',
        'Host: shop',
        `Authorization: Bearer ${secret}`,
        'Content-Type: application/json',
        'Content-Length: 100000',
      ]),
    );
    const timer = setInterval(() => raw.socket.write(' '), 100);
    const closedAfterMs = await raw.closed;
    clearInterval(timer);
    console.log(`slow body (limit 1500 ms): closed after ${closedAfterMs.toFixed(0)} ms`);
    expect(parseAnswer(raw.received()).status).toBe(408);
    expect(closedAfterMs).toBeLessThan(3500);
  });

  it('a slow body after a 401 is not waited for at all', async () => {
    const raw = await openRaw(limited.url);
    raw.socket.write(
      headOf([
        'POST /api/v1/customers HTTP/1.1',
        'Host: shop',
        'Content-Type: application/json',
        'Content-Length: 100000',
      ]),
    );
    const timer = setInterval(() => raw.socket.write(' '), 100);
    const closedAfterMs = await raw.closed;
    clearInterval(timer);
    console.log(`slow body after a 401: closed after ${closedAfterMs.toFixed(0)} ms`);
    expect(parseAnswer(raw.received()).status).toBe(401);
    expect(closedAfterMs).toBeLessThan(400);
  });

  it('an idle kept-alive connection is closed after the keep-alive timeout', async () => {
    const raw = await openRaw(limited.url);
    raw.socket.write(headOf(['GET /api/v1/health HTTP/1.1', 'Host: shop']));
    await raw.waitFor('}');
    const closedAfterMs = await raw.closed;
    expect(closedAfterMs).toBeGreaterThanOrEqual(250);
    expect(closedAfterMs).toBeLessThan(1500);
  });

  it('past maxConnections a new connection is closed at once, and the log says so', async () => {
    const held = await Promise.all([
      openRaw(limited.url),
      openRaw(limited.url),
      openRaw(limited.url),
    ]);
    // Keep them busy: each holds a request whose headers are not finished.
    for (const raw of held) raw.socket.write('GET /api/v1/health HTTP/1.1\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const extra = await openRaw(limited.url);
    const closedAfterMs = await extra.closed;
    expect(extra.received()).toBe('');
    expect(closedAfterMs).toBeLessThan(400);
    expect(limitedLogs.text()).toContain('connection limit reached');
    for (const raw of held) raw.socket.destroy();
    await Promise.all(held.map((raw) => raw.closed));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Room again once they are gone.
    expect((await limited.request('GET', '/health')).status).toBe(200);
  });
});
