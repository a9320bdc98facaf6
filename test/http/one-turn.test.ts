import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { andThen } from '../../server/maybe-promise.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';

describe('andThen', () => {
  it('hands a value on at once and a promise once it settles', async () => {
    const seen: string[] = [];
    const now = andThen(2, (value) => {
      seen.push('now');
      return value * 2;
    });
    seen.push('after now');
    const later = andThen(Promise.resolve(3), (value) => {
      seen.push('later');
      return value * 2;
    });
    seen.push('after later');
    expect(now).toBe(4);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(6);
    expect(seen).toEqual(['now', 'after now', 'after later', 'later']);
  });

  it('throws what the next step throws on a value, and rejects with it on a promise', async () => {
    const fail = () => {
      throw new Error('refused');
    };
    expect(() => andThen(1, fail)).toThrow('refused');
    await expect(andThen(Promise.resolve(1), fail)).rejects.toThrow('refused');
  });
});

/**
 * docs/http.md, "One turn for a read": where no step waits, the answer is written before
 * the request event returns. A listener added after the pipeline's runs right after it, in
 * the same event: it sees the answer written, or not yet.
 */
describe.each(databaseKinds)('the read in one turn (%s)', (kind) => {
  let server: TestServer;
  let token: string;
  let customerPath: string;
  const writtenInTheEvent = new Map<string, boolean>();

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    token = await server.token(await server.createCompany(), '*');
    const created = await server.request('POST', '/customers', {
      token,
      body: { name: 'Ana', type: 'F' },
    });
    customerPath = `/customers/${created.body.data.id}`;
    server.app.http.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      writtenInTheEvent.set(String(request.headers['x-request-id']), response.writableEnded);
    });
  });
  afterAll(() => server.close());

  const read = (id: string, path: string, secret = token) =>
    server.request('GET', path, { token: secret, headers: { 'x-request-id': id } });

  it('answers a read with a kept token within the request event on SQLite only', async () => {
    await read('warm', customerPath);
    const answer = await read('kept', customerPath);
    expect(answer.status).toBe(200);
    expect(answer.body.data.name).toBe('Ana');
    expect(writtenInTheEvent.get('kept')).toBe(kind === 'sqlite');
  });

  it('answers a refusal found at once within the event, on both databases', async () => {
    const answer = await read('unknown-route', '/nowhere');
    expect(answer.status).toBe(404);
    expect(writtenInTheEvent.get('unknown-route')).toBe(true);
  });

  it('waits for a token it must read, and answers it the same', async () => {
    const fresh = await server.token(await server.createCompany(), ['customers.read']);
    const answer = await read('fresh', customerPath, fresh);
    // Another company's token: the customer is not its own.
    expect(answer.status).toBe(404);
    expect(writtenInTheEvent.get('fresh')).toBe(false);
  });

  it('ends a missing record in the same 404 whichever path it took', async () => {
    const answer = await read('missing', '/customers/999999');
    expect(answer.status).toBe(404);
    expect(answer.body.message).toBe('Customer not found.');
    expect(writtenInTheEvent.get('missing')).toBe(kind === 'sqlite');
  });
});
