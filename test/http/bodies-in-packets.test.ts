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

  /**
   * Writes each part on one new connection, 30 ms apart (so that each arrives as a packet of
   * its own), then reads the answers to the request ids, in order.
   */
  const sendInParts = async (parts: string[], ids: string[]) => {
    const connection = await openRaw(server.url);
    try {
      for (const [index, part] of parts.entries()) {
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, 30));
        connection.socket.write(part);
      }
      const text = await connection.waitFor(`x-request-id: ${ids.at(-1)}\r\n`);
      await connection.waitFor('"updated_at"', 200);
      return ids.map((id) => {
        const at = text.indexOf(`x-request-id: ${id}\r\n`);
        return parseAnswer(text.slice(text.lastIndexOf('HTTP/1.1 ', at)));
      });
    } finally {
      connection.socket.destroy();
    }
  };

  it('reads a body that came whole with its headers, and the request after it', async () => {
    const [first, second] = [customer('One Packet'), customer('Same Connection')];
    const answers = await sendInParts(
      [post('a1', first) + first + post('a2', second) + second],
      ['a1', 'a2'],
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    expect(answers.map((answer) => answer.body.data.name)).toEqual([
      'One Packet',
      'Same Connection',
    ]);
  });

  it('reads a body sent after its headers, or in pieces', async () => {
    const body = customer('In Pieces');
    const [answer] = await sendInParts([post('b1', body), body.slice(0, 5), body.slice(5)], ['b1']);
    expect(answer!.status).toBe(201);
    expect(answer!.body.data.name).toBe('In Pieces');
  });

  it('reads a chunked body, whole in one packet or not', async () => {
    const body = customer('Chunked');
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const answers = await sendInParts(
      [
        post('c1', '', 'Transfer-Encoding: chunked') +
          chunked +
          post('c2', '', 'Transfer-Encoding: chunked') +
          chunked.slice(0, 9),
        chunked.slice(9),
      ],
      ['c1', 'c2'],
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
  });

  it('refuses a malformed body that came whole, and answers the request after it', async () => {
    const good = customer('After Malformed');
    const answers = await sendInParts(
      [post('d1', '{"name":') + '{"name":' + post('d2', good) + good],
      ['d1', 'd2'],
    );
    expect(answers.map((answer) => answer.status)).toEqual([400, 201]);
  });
});
