import { request } from 'undici';
import { formats, worst } from './flood-inputs.ts';

/**
 * The render flood's four clients, in a process of their own (render-flood.test.ts starts
 * it): in the test's process, their reading of megabytes of answers would be work on the
 * servers' event loop that a real client does elsewhere. Argument: the plan as JSON. Prints
 * the renders sent and the statuses answered, as JSON.
 */
interface Plan {
  /** The API of the instance previews and jobs go to, and of the one agents claim through. */
  one: string;
  two: string;
  floodMs: number;
  shops: { token: string; ids: number[]; agentToken: string; agentUuid: string }[];
}

const plan = JSON.parse(process.argv[2]!) as Plan;
const statuses: Record<number, number> = {};
let renders = 0;

async function post(url: string, token: string, body: unknown, headers = {}): Promise<void> {
  const answer = await request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await answer.body.dump({ limit: Number.POSITIVE_INFINITY });
  statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
}

const until = performance.now() + plan.floodMs;
await Promise.all(
  plan.shops.map(async ({ token, ids, agentToken, agentUuid }, shop) => {
    for (let turn = shop; performance.now() < until; turn++) {
      const which = turn % worst.length;
      const { name, data } = worst[which]!;
      if (turn % 2 === 0) {
        await post(`${plan.one}/printing/templates/${ids[which]}/preview`, token, {
          data,
          format: formats[turn % formats.length],
        });
      } else {
        await post(`${plan.one}/printing/jobs`, token, { route: 'till', template: name, data });
        // Claimed through the second instance; a claimed job is left to its lease.
        await post(
          `${plan.two}/printing/jobs/next`,
          agentToken,
          { wait: 0 },
          {
            'x-agent-id': agentUuid,
          },
        );
      }
      renders += 1;
    }
  }),
);
process.stdout.write(JSON.stringify({ renders, statuses }));
