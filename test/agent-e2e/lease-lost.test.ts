import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addRawQueue, deleteQueue, startTestCups } from '../helpers/cups.ts';
import { startFaultProxy } from '../helpers/fault-proxy.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ShopdeskProcess, spawnShopdesk } from './helpers/agent-process.ts';
import { bigLabel, type RawPrinter, startRawPrinter } from './helpers/raw-printer.ts';

/**
 * A job the server failed because its lease ran out (`lease_expired`, decided by the server
 * alone) gets one line on the agent's stdout, however the agent hears of it: a confirm
 * answered 409 after a crash, or a heartbeat that releases a job still in hand.
 */
const suffix = randomBytes(3).toString('hex');
const heldQueue = `shopdesk-e2e-lease-${suffix}`;
let dir: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopdesk-e2e-lease-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function startAgent(serverUrl: string, token: string, route: string, stateDir: string) {
  const agent = spawnShopdesk(
    ['agent', '--server', serverUrl, '--route', route, '--state-dir', stateDir],
    { SHOPDESK_AGENT_TOKEN: token },
  );
  cleanups.push(() => agent.kill('SIGKILL'));
  return agent;
}

const jobLines = (agent: ShopdeskProcess, id: number) =>
  agent
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith(`job ${id} `));

describe('lease_expired after a crash: the confirm is answered 409', () => {
  let server: RealAgentTestServer;
  beforeAll(async () => {
    server = await startRealAgentTestServer({ leaseSeconds: 2 });
  });
  afterAll(() => server?.close());

  it('the restarted agent prints the lease line, once, for the job it had printed', async () => {
    const proxy = await startFaultProxy(server.url);
    cleanups.push(() => proxy.close());
    const out = join(dir, 'out');
    const stateDir = join(dir, 'state-crash');
    const route = `receipts=folder:${out}`;
    // The confirm is lost on the way: the job is printed and its report waits in the outbox.
    proxy.hold((method, path) => method === 'POST' && /\/confirm$/.test(path));
    const first = startAgent(proxy.url, server.token, route, stateDir);
    const job = await server.createJob({ route: 'receipts', title: 'lost', content: 'paper' });
    await waitFor('the confirm on its way', () => proxy.held() === 1, 30_000);
    expect(await readdir(out)).toEqual([`${job.id}-lost.txt`]);
    expect(existsSync(join(stateDir, 'outbox', `${job.id}.json`))).toBe(true);
    expect(jobLines(first, job.id)).toEqual([expect.stringMatching(/ printed \d+ ms$/)]);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');

    // Nobody holds the lease any more: once its 2 s are past (the server's clock moved on)
    // the server fails the job (its own sweep runs every 5 s; this one makes it now).
    server.clock.advance(2500);
    await server.sweep();
    expect(await server.job(job.id)).toMatchObject({
      status: 'failed',
      error: { code: 'lease_expired' },
    });

    proxy.hold(null);
    const second = startAgent(proxy.url, server.token, route, stateDir);
    await waitFor('the lease line', () => jobLines(second, job.id).length > 0, 30_000);
    await waitFor('the outbox emptied', async () => {
      const left = await readdir(join(stateDir, 'outbox')).catch(() => []);
      return left.length === 0;
    });
    expect(jobLines(second, job.id)).toEqual([
      `job ${job.id} route=receipts printer=folder:${out} failed: printed here, but the server had failed it already: its lease ran out before the confirm arrived; do not retry it (lease_expired)`,
    ]);
    expect(second.stdout().trim().split('\n')).toHaveLength(1);
    // Printed once, not again.
    expect(await readdir(out)).toEqual([`${job.id}-lost.txt`]);
    expect(await second.kill('SIGTERM')).toBe(0);
  }, 90_000);
});

describe('lease_expired while the job is in hand: a heartbeat releases it', () => {
  let printer: RawPrinter;
  let server: RealAgentTestServer;
  beforeAll(async () => {
    await startTestCups();
    printer = await startRawPrinter();
    await addRawQueue(heldQueue, printer.port);
    // Heartbeats every 4 s extend a 2 s lease: the lease runs out between two of them.
    server = await startRealAgentTestServer({ leaseSeconds: 2, heartbeatSeconds: 4 });
  });
  afterAll(async () => {
    await server?.close();
    await deleteQueue(heldQueue);
    printer?.releaseHeld();
    printer?.server.close();
  });

  it('prints the lease line when the server releases the job, and only its printed line after', async () => {
    printer.holding = true;
    const agent = startAgent(
      server.url,
      server.token,
      `held=${heldQueue}`,
      join(dir, 'state-held'),
    );
    const job = await server.createJob({
      route: 'held',
      title: 'Slow',
      content_type: 'application/vnd.zebra.zpl',
      content: bigLabel(`lease ${suffix}`),
    });
    await waitFor('the job at the printer', () => printer.held.length === 1, 60_000);
    await waitFor('the lease line', () => jobLines(agent, job.id).length > 0, 30_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}; agent stderr: ${agent.stderr()}`);
      },
    );
    expect(jobLines(agent, job.id)).toEqual([
      `job ${job.id} route=held printer=${heldQueue} failed: the server took it back while this agent had it (its lease ran out) and fails it; check the printer before retrying it (lease_expired)`,
    ]);
    // A lease past its end is lost at once; the sweep (every 5 s) marks the job failed.
    await server.sweep();
    expect((await server.job(job.id)).error?.code).toBe('lease_expired');

    // The printer takes it after all: printed here, its confirm refused, no second lease line.
    printer.releaseHeld();
    await waitFor('the printed line', () => jobLines(agent, job.id).length === 2, 60_000);
    expect(jobLines(agent, job.id)[1]).toMatch(
      new RegExp(`^job ${job.id} route=held printer=${heldQueue} printed \\d+ ms$`),
    );
    await waitFor('the refused confirm', () =>
      agent.stderr().includes(`server refused the confirm report of job ${job.id}`),
    );
    expect(jobLines(agent, job.id)).toHaveLength(2);
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 150_000);
});
