/**
 * The read, weighed against another checkout: `npx tsx bench/read-against.ts --against DIR
 * [--rounds N] [--seconds N] [--pin]`.
 *
 * Runs `GET /customers/{id}` (10 connections, the bench's token and customer) on this
 * checkout's ShopDesk and on the ShopDesk of DIR (`git worktree add DIR <commit>`, with
 * `node_modules` linked), each a `shopdesk serve` of its own on a copy of a file its own
 * checkout's seeding made (so checkouts with different migrations compare),
 * in alternating rounds, and prints requests/s and CPU µs a request for both and their
 * ratios: to weigh one change of the server in one run (docs/benchmarks.md, "How to run
 * it").
 *
 * `--pin`: both servers on CPU 1; run this script under `taskset -c 0` so that the load
 * generator keeps CPU 0. Unpinned, the scheduler moves the three processes between the two
 * cores and the same code on both sides read 0.94x–1.04x; pinned, 0.99x–1.03x.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measure } from './lib/load.ts';
import { seedDatabases } from './lib/seed.ts';
import type { RunningServer } from './lib/spawn.ts';
import { startShopDesk } from './servers/ours.ts';

const { values } = parseArgs({
  options: {
    against: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    pin: { type: 'boolean', default: false },
  },
});
if (!values.against) throw new Error('usage: read-against.ts --against DIR [--rounds N] [--pin]');
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const dir = mkdtempSync(join(tmpdir(), 'shopdesk-read-against-'));
const servers: RunningServer[] = [];
try {
  // Each reads a copy of its seeded file, never the file the seeding wrote.
  const [ours, theirs] = [join(dir, 'here.sqlite'), join(dir, 'there.sqlite')];
  // Each checkout seeds its own file with its own code (its migrations may differ).
  const seed = await seedDatabases([join(dir, 'seed.sqlite'), ours]);
  const theirSeeding = (await import(join(values.against, 'bench/lib/seed.ts'))) as {
    seedDatabases: typeof seedDatabases;
  };
  const theirSeed = await theirSeeding.seedDatabases([join(dir, 'their-seed.sqlite'), theirs]);
  const pinToCpu = values.pin ? 1 : undefined;
  servers.push(await startShopDesk(ours, { name: 'ShopDesk, this checkout', pinToCpu }));
  servers.push(
    await startShopDesk(theirs, {
      name: 'ShopDesk, --against',
      checkout: values.against,
      pinToCpu,
    }),
  );
  const scenarios = [seed, theirSeed].map((one) => ({
    method: 'GET' as const,
    path: `/api/v1/customers/${one.customerId}`,
    headers: { authorization: `Bearer ${one.token}` },
  }));
  const results = servers.map(() => ({ requests: [] as number[], cpu: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const index of order) {
      const server = servers[index]!;
      const measured = await measure(server.origin, server.child.pid, scenarios[index]!, {
        connections: 10,
        seconds,
        warmupSeconds: round === 0 ? 3 : 1,
      });
      results[index]!.requests.push(measured.requestsPerSecond);
      results[index]!.cpu.push(measured.cpuUsPerRequest ?? Number.NaN);
      console.log(
        `round ${round + 1}, ${server.name}: ${Math.round(measured.requestsPerSecond)} req/s, ${measured.cpuUsPerRequest?.toFixed(1)} µs CPU/req`,
      );
    }
  }
  const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / list.length;
  const [a, b] = results.map((result) => ({
    requests: mean(result.requests),
    cpu: mean(result.cpu),
  }));
  console.log(
    `\nthis checkout: ${Math.round(a!.requests)} req/s, ${a!.cpu.toFixed(2)} µs CPU/req` +
      `\n--against:     ${Math.round(b!.requests)} req/s, ${b!.cpu.toFixed(2)} µs CPU/req` +
      `\nthis ÷ --against: ${(a!.requests / b!.requests).toFixed(3)}x req/s, ` +
      `${(b!.cpu / a!.cpu).toFixed(3)}x CPU a request (theirs ÷ ours)`,
  );
} finally {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
