import { randomUUID } from 'node:crypto';
import { averageOf, type LoadSettings, type Measurement, measure, type Scenario } from './load.ts';
import { type Seed, sampleCustomer } from './seed.ts';
import type { RunningServer } from './spawn.ts';
import { fixed, formatTable } from './table.ts';

/**
 * What an `Idempotency-Key` costs (docs/http.md): the same writes with and without a fresh
 * key on every request, on ShopDesk alone, in alternating rounds so that a busy moment of
 * the machine hits both alike.
 */
function writes(token: string): Array<{ name: string; scenario: Scenario }> {
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let serial = 0;
  const job = JSON.stringify({
    route: 'bench',
    content_type: 'text/plain',
    content_base64: Buffer.from('Obrigado pela preferência!\n'.repeat(8)).toString('base64'),
  });
  return [
    {
      name: 'POST /customers',
      scenario: {
        method: 'POST',
        path: '/api/v1/customers',
        headers: json,
        body: () => JSON.stringify(sampleCustomer(`K-${++serial}`)),
      },
    },
    {
      name: 'POST /printing/jobs',
      scenario: { method: 'POST', path: '/api/v1/printing/jobs', headers: json, body: job },
    },
  ];
}

const keyed = (scenario: Scenario): Scenario => ({
  ...scenario,
  headersPerRequest: () => ({ 'idempotency-key': randomUUID() }),
});

export async function keyCostTable(
  server: RunningServer,
  seed: Seed,
  settings: LoadSettings,
  rounds: number,
): Promise<{ table: string; measured: Map<string, { without: Measurement; with: Measurement }> }> {
  const rows: string[][] = [];
  const measured = new Map<string, { without: Measurement; with: Measurement }>();
  for (const { name, scenario } of writes(seed.token)) {
    const runs: Record<'without' | 'with', Measurement[]> = { without: [], with: [] };
    for (let round = 0; round < rounds; round++) {
      for (const kind of ['without', 'with'] as const) {
        const result = await measure(
          server.origin,
          server.child.pid,
          kind === 'with' ? keyed(scenario) : scenario,
          { ...settings, warmupSeconds: round === 0 ? settings.warmupSeconds : 0 },
        );
        if (result.failures > 0) {
          throw new Error(`${name} ${kind} a key: ${result.failures} failed requests`);
        }
        process.stderr.write(
          `  ${name} ${kind} a key, round ${round + 1}: ${fixed(result.requestsPerSecond)} req/s\n`,
        );
        runs[kind].push(result);
      }
    }
    const without = averageOf(runs.without);
    const withKey = averageOf(runs.with);
    measured.set(name, { without, with: withKey });
    const change = (withKey.requestsPerSecond / without.requestsPerSecond - 1) * 100;
    const cpu = (m: Measurement) => (m.cpuUsPerRequest === null ? '—' : fixed(m.cpuUsPerRequest));
    rows.push([
      name,
      fixed(without.requestsPerSecond),
      fixed(withKey.requestsPerSecond),
      `${change >= 0 ? '+' : ''}${change.toFixed(1)} %`,
      fixed(without.p99Ms, 1),
      fixed(withKey.p99Ms, 1),
      cpu(without),
      cpu(withKey),
    ]);
  }
  const table = formatTable(
    [
      'scenario',
      'req/s, no key',
      'req/s, key',
      'change',
      'p99 ms, no key',
      'p99 ms, key',
      'CPU µs/req, no key',
      'CPU µs/req, key',
    ],
    rows,
  );
  return { table, measured };
}
