/**
 * Whether an answer given before the body is read reaches the client (docs/http.md, "Answers
 * before the body"): on SQLite and PostgreSQL, Node's fetch (undici) and curl with and
 * without `Expect: 100-continue` POST bodies of 1, 8 and 20 MiB, of known length and
 * streamed, with a bad token (401) or over the size limit (413), N times each. Prints the
 * outcomes of each kind of try and the total that read the status.
 *
 *   tsx bench/early-answers.ts [--tries 20]
 */
import { parseArgs } from 'node:util';
import { databaseKinds, startTestServerOn } from '../test/helpers/databases.ts';
import { clients, removeBodies, targetOf, tryOnce } from '../test/helpers/early-answers.ts';

const { values } = parseArgs({ options: { tries: { type: 'string', default: '20' } } });
const tries = Number(values.tries);

let good = 0;
let all = 0;
for (const kind of databaseKinds) {
  const server = await startTestServerOn(kind);
  const token = await server.token(await server.createCompany('Early Co'), '*');
  const started = performance.now();
  for (const status of [401, 413] as const) {
    for (const mib of [1, 8, 20]) {
      for (const streamed of [false, true]) {
        for (const client of clients) {
          const { url, bytes } = targetOf({ status, mib }, server.api);
          const outcomes = new Map<string, number>();
          for (let attempt = 0; attempt < tries; attempt++) {
            const sent = status === 401 ? 'sd_not_a_token' : token;
            const seen = await tryOnce({ client, url, bytes, streamed, token: sent });
            outcomes.set(seen, (outcomes.get(seen) ?? 0) + 1);
            all++;
            if (seen === String(status)) good++;
          }
          const shown = [...outcomes].map(([seen, n]) => `${seen} ×${n}`).join(', ');
          console.log(
            `${kind} ${status} ${String(mib).padStart(2)} MiB ${streamed ? 'streamed ' : 'length   '} ${client.padEnd(14)} ${shown}`,
          );
        }
      }
    }
  }
  console.log(`${kind}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await server.close();
}
removeBodies();
console.log(`${good}/${all} tries read the status`);
