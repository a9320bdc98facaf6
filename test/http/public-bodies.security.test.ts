import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultHttpLimits } from '../../server/config.ts';
import { publicBody } from '../../server/http/route.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { openRaw, parseAnswer, type RawConnection } from './raw-socket.ts';

/**
 * Slow bodies on the routes anyone may call without a token (docs/security.md, "Limits"):
 * sign-in, setting a password and an agent's enrolment read their body before anything
 * can refuse the caller, so the body is small (8 KiB) and must arrive whole within 5 s.
 * Before, 20 sockets sending a byte a second held `--max-connections 20` for the 60 s
 * request timeout.
 */
const publicPaths = [
  '/api/v1/console/session',
  '/api/v1/printing/enroll',
  '/api/v1/console/password',
];

const headOf = (path: string, length: number) =>
  [
    `POST ${path} HTTP/1.1`,
    'Host: shop',
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');

/**
 * Each database's run waits out the 5 s deadline, idle: the two run side by side (their
 * servers share nothing, and waiting takes no CPU).
 */
describe.concurrent.each(databaseKinds)('slow bodies on the public routes (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServerOn(kind, {
      config: { http: { ...defaultHttpLimits, maxConnections: 20 } },
    });
  });
  afterAll(() => server?.close());

  it('20 clients trickling a body a byte a second are cut after 5 s: an ordinary client is served again within 12 s', async () => {
    const started = performance.now();
    const slow: RawConnection[] = await Promise.all(
      Array.from({ length: 20 }, () => openRaw(server.url)),
    );
    const timers = slow.map((raw, i) => {
      raw.socket.write(headOf(publicPaths[i % publicPaths.length]!, 1000));
      return setInterval(() => raw.socket.write(' '), 1000);
    });
    try {
      // Every slot is held: a new connection is closed at accept, without an answer.
      const http = server.app.http.server;
      await expect
        .poll(() => new Promise((done) => http.getConnections((_error, count) => done(count))))
        .toBe(20);
      const turnedAway = await openRaw(server.url);
      await turnedAway.closed;
      expect(turnedAway.received()).toBe('');
      // Each gets its 408 and its connection is closed, not kept for the rest of the body.
      const cutAfter = await Promise.all(slow.map((raw) => raw.closed));
      for (const raw of slow) {
        const answer = parseAnswer(raw.received());
        expect(answer.status).toBe(408);
        expect(answer.headers.connection).toBe('close');
        expect(answer.body).toMatchObject({
          code: 'request_timeout',
          message: 'The request body did not arrive within 5 s; send it whole, at once.',
        });
      }
      expect(Math.min(...cutAfter)).toBeGreaterThan(publicBody.bodyTimeoutMs - 100);
      expect(Math.max(...cutAfter)).toBeLessThan(publicBody.bodyTimeoutMs + 3000);
      const served = await fetch(`${server.api}/health`);
      const servedAfterS = (performance.now() - started) / 1000;
      console.log(`${kind}: an ordinary client served again after ${servedAfterS.toFixed(2)} s`);
      expect(served.status).toBe(200);
      expect(servedAfterS).toBeLessThan(12);
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const raw of slow) raw.socket.destroy();
    }
  }, 30_000);
});

describe.each(databaseKinds)('small bodies on the public routes (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServerOn(kind);
  });
  afterAll(() => server?.close());

  it.each(publicPaths)('%s: a body over 8 KiB is a 413 before it is read', async (path) => {
    const raw = await openRaw(server.url);
    try {
      raw.socket.write(headOf(path, 8 * 1024 + 1));
      const answer = parseAnswer(await raw.waitFor('}'));
      expect(answer.status).toBe(413);
      expect(answer.body.message).toBe('The request body must not be larger than 8 KiB.');
    } finally {
      raw.socket.destroy();
    }
  });

  it('a body sent at once is read as before', async () => {
    const answer = await server.request('POST', '/printing/enroll', {
      body: { code: 'ZZZZ-ZZZZ', uuid: '0b6f4c8e-3d2a-4c1b-9a7e-5f8d2c1b0a9e' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.code[0]).toMatch(/^This enrolment code is not known/);
  });
});
