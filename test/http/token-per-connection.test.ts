import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { openRaw, parseAnswer } from './raw-socket.ts';

/**
 * The authenticator keeps the hash of the last secret each connection sent (docs/http.md,
 * tokens): every request on a keep-alive connection is still answered as the token it
 * carries, whichever token came before it on that connection.
 */
describe.each(databaseKinds)('tokens on one keep-alive connection (%s)', (kind) => {
  let server: TestServer;
  let first: string;
  let second: string;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    first = await server.token(await server.createCompany('First Co'), '*');
    second = await server.token(await server.createCompany('Second Co'), '*');
  });
  afterAll(() => server.close());

  it('each request is answered as its own token, or 401 for an unknown one', async () => {
    const connection = await openRaw(server.url);
    try {
      const unknown = `${first.slice(0, -4)}AAAA`;
      const sent = [first, second, first, unknown, first, ''];
      const answers = [];
      for (const [n, secret] of sent.entries()) {
        const authorization = secret ? `Authorization: Bearer ${secret}\r\n` : '';
        connection.socket.write(
          `GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Request-Id: r${n}\r\n${authorization}\r\n`,
        );
        const text = await connection.waitFor(`x-request-id: r${n}\r\n`);
        const at = text.lastIndexOf('HTTP/1.1 ');
        answers.push(parseAnswer(text.slice(at)));
      }
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 401, 200, 401]);
      expect(answers.map((answer) => answer.body.data?.company.name)).toEqual([
        'First Co',
        'Second Co',
        'First Co',
        undefined,
        'First Co',
        undefined,
      ]);
    } finally {
      connection.socket.destroy();
    }
  });
});
