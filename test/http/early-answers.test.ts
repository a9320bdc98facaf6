import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import { type Client, clients, removeBodies, targetOf, tryOnce } from '../helpers/early-answers.ts';
import type { TestServer } from '../helpers/server.ts';
import { requireProgram } from '../helpers/system-programs.ts';

/**
 * An answer given before the body is read reaches the client (docs/http.md, "Answers before
 * the body"): Node's fetch and curl, with and without `Expect: 100-continue`, a body of
 * known length or streamed, of 1, 8 and 20 MiB, read the 401 of a bad token and the 413 of
 * a body over the limit. Before, the server closed the socket while the client was still
 * sending, and the client saw EPIPE or ECONNRESET (fetch) or failed to send (curl's exit
 * 55) instead of the status. Two tries of each here; `bench/early-answers.ts` runs 20.
 */
const tries = 2;

interface Case {
  status: 401 | 413;
  mib: number;
  streamed: boolean;
  client: Client;
}

const cases: Case[] = [];
for (const status of [401, 413] as const) {
  for (const mib of [1, 8, 20]) {
    for (const streamed of [false, true]) {
      for (const client of clients) cases.push({ status, mib, streamed, client });
    }
  }
}

describe.each(databaseKinds)('answers before the body on %s', (kind) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    await requireProgram('curl');
    server = await startTestServerOn(kind);
    token = await server.token(await server.createCompany('Early Co'), '*');
  });
  afterAll(async () => {
    removeBodies();
    await server?.close();
  });

  it.each(
    cases.map((one) => [
      `${one.status}, ${one.mib} MiB, ${one.streamed ? 'streamed' : 'Content-Length'}, ${one.client}`,
      one,
    ]),
  )('%s: every try reads the status', async (_name, one) => {
    const { url, bytes } = targetOf(one, server.api);
    const seen: string[] = [];
    for (let attempt = 0; attempt < tries; attempt++) {
      const sent = one.status === 401 ? 'sd_not_a_token' : token;
      seen.push(
        await tryOnce({ client: one.client, url, bytes, streamed: one.streamed, token: sent }),
      );
    }
    expect(seen).toEqual(Array(tries).fill(String(one.status)));
  });
});
