import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { openRaw, parseAnswer } from './raw-socket.ts';

/**
 * A body is read however it arrives (server/http/body.ts): whole with its headers (taken
 * from the stream's buffer at once, by its declared length), after them, in pieces, or
 * chunked; and reading one never eats the next request on a kept-alive connection.
 */
describe.each(databaseKinds)('bodies as they come off the wire (%s)', (kind) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    token = await server.token(await server.createCompany(), '*');
  });
  afterAll(() => server.close());

  const post = (id: string, body: string, extra = `Content-Length: ${Buffer.byteLength(body)}`) =>
    `POST /api/v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nX-Request-Id: ${id}\r\n${extra}\r\n\r\n`;
  const customer = (name: string) => JSON.stringify({ name, type: 'F' });

  /** The answers to the request ids, in order, from what the connection received. */
  const answersTo = async (connection: Awaited<ReturnType<typeof openRaw>>, ids: string[]) => {
    const text = await connection.waitFor(`x-request-id: ${ids.at(-1)}\r\n`);
    await connection.waitFor('"updated_at"', 200);
    return ids.map((id) => {
      const at = text.indexOf(`x-request-id: ${id}\r\n`);
      return parseAnswer(text.slice(text.lastIndexOf('HTTP/1.1 ', at)));
    });
  };

  it('reads a body that came whole with its headers, and the request after it', async () => {
    const connection = await openRaw(server.url);
    try {
      const [first, second] = [customer('One Packet'), customer('Same Connection')];
      connection.socket.write(post('a1', first) + first + post('a2', second) + second);
      const answers = await answersTo(connection, ['a1', 'a2']);
      expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
      expect(answers.map((answer) => answer.body.data.name)).toEqual([
        'One Packet',
        'Same Connection',
      ]);
    } finally {
      connection.socket.destroy();
    }
  });

  it('reads a body sent after its headers, or in pieces', async () => {
    const connection = await openRaw(server.url);
    try {
      const body = customer('In Pieces');
      connection.socket.write(post('b1', body));
      await new Promise((resolve) => setTimeout(resolve, 30));
      connection.socket.write(body.slice(0, 5));
      await new Promise((resolve) => setTimeout(resolve, 30));
      connection.socket.write(body.slice(5));
      const [answer] = await answersTo(connection, ['b1']);
      expect(answer!.status).toBe(201);
      expect(answer!.body.data.name).toBe('In Pieces');
    } finally {
      connection.socket.destroy();
    }
  });

  it('reads a chunked body, whole in one packet or not', async () => {
    const connection = await openRaw(server.url);
    try {
      const body = customer('Chunked');
      const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      connection.socket.write(post('c1', '', 'Transfer-Encoding: chunked') + chunked);
      connection.socket.write(post('c2', '', 'Transfer-Encoding: chunked') + chunked.slice(0, 9));
      await new Promise((resolve) => setTimeout(resolve, 30));
      connection.socket.write(chunked.slice(9));
      const answers = await answersTo(connection, ['c1', 'c2']);
      expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    } finally {
      connection.socket.destroy();
    }
  });

  it('refuses a malformed body that came whole, and answers the request after it', async () => {
    const connection = await openRaw(server.url);
    try {
      const good = customer('After Malformed');
      connection.socket.write(post('d1', '{"name":') + '{"name":' + post('d2', good) + good);
      const answers = await answersTo(connection, ['d1', 'd2']);
      expect(answers.map((answer) => answer.status)).toEqual([400, 201]);
    } finally {
      connection.socket.destroy();
    }
  });
});
