import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrinterInfo } from '../../shared/printing.ts';
import { makeStateDir } from '../agent/helpers/state-dir.ts';
import { addPdfQueue, deleteQueue, startTestCups } from '../helpers/cups.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { spawnAgent } from './helpers/agent-process.ts';
import { testAgentRuntime } from './helpers/agent-runtime.ts';

/**
 * Printer state from real CUPS to the real server: the agent's heartbeats carry it and the
 * server returns it in the agent record (`GET /printing/config`'s `agent`); the headless
 * agent says on stderr when a route's printer stops being ready and when it is ready again.
 */

const execFileAsync = promisify(execFile);
const suffix = randomBytes(3).toString('hex');
const queue = `shopdesk-e2e-state-${suffix}`;
const headlessQueue = `shopdesk-e2e-state-cli-${suffix}`;
let server: RealAgentTestServer;

beforeAll(async () => {
  await startTestCups();
  for (const name of [queue, headlessQueue]) {
    await addPdfQueue(name);
  }
  // The server's own heartbeat interval (15 s): a change seen sooner came early.
  server = await startRealAgentTestServer();
});

afterAll(async () => {
  await server?.close();
  for (const name of [queue, headlessQueue]) await deleteQueue(name);
});

/** The printer as the server's agent record has it (undefined before the agent registered). */
async function onServer(agentId: string, printer: string): Promise<PrinterInfo | undefined> {
  const config = await server.request('GET', '/printing/config', undefined, {
    'x-agent-id': agentId,
  });
  if (config.status === 409) return undefined;
  expect(config.status).toBe(200);
  const found = (config.body.data.agent.printers as PrinterInfo[]).find((p) => p.name === printer);
  if (!found) return undefined;
  // The state only: capabilities are test/agent-e2e/capabilities.test.ts's.
  const { capabilities: _capabilities, ...state } = found;
  return state;
}

// Each test has its own queue and its own agent: side by side, the second's wait for the
// agent's printer watch (5 s) overlaps the first.
describe('printer state: real CUPS → agent → real server', () => {
  it.concurrent('reaches the agent record: idle, stopped with its reason, idle again, not accepting', async ({
    expect,
    onTestFinished,
  }) => {
    const state = await makeStateDir();
    onTestFinished(state.cleanup);
    const runtime = testAgentRuntime(server, state.dir, [{ name: 'a4', printer: queue }], {
      printerCheckMs: 200,
    });
    onTestFinished(() => runtime.stop());
    await runtime.start();
    await waitFor('connected', () => runtime.status().connection === 'connected');
    const agentId = runtime.status().agentId!;
    expect(await onServer(agentId, queue)).toEqual({
      name: queue,
      is_default: false,
      state: 'idle',
      reasons: [],
      accepting_jobs: true,
      message: null,
    });

    const states: Array<[string, (printer: PrinterInfo | undefined) => boolean]> = [
      ['stopped', (printer) => printer?.state === 'stopped'],
      ['idle', (printer) => printer?.state === 'idle'],
      ['not accepting', (printer) => printer?.accepting_jobs === false],
    ];
    const delays: number[] = [];
    const changes = [
      () => execFileAsync('cupsdisable', ['-r', `Door open ${suffix}`, queue]),
      () => execFileAsync('cupsenable', [queue]),
      () => execFileAsync('cupsreject', [queue]),
    ];
    for (const [index, [what, reached]] of states.entries()) {
      const changedAt = Date.now();
      await changes[index]!();
      await waitFor(`${what} on the server`, async () => reached(await onServer(agentId, queue)));
      delays.push(Date.now() - changedAt);
      if (what === 'stopped') {
        expect(await onServer(agentId, queue)).toMatchObject({
          reasons: ['paused'],
          message: `Door open ${suffix}`,
        });
      }
    }
    await execFileAsync('cupsaccept', [queue]);
    // Each change reached the server well within the 15 s heartbeat: it went out early.
    console.log(`printer state change → agent record: ${delays.join(', ')} ms`);
    for (const delay of delays) expect(delay).toBeLessThan(10_000);
  }, 60_000);

  it.concurrent('shopdesk agent says on stderr when a route printer is not ready, and when it is again', async ({
    expect,
    onTestFinished,
  }) => {
    await execFileAsync('cupsdisable', ['-r', `Paper out ${suffix}`, headlessQueue]);
    const state = await makeStateDir();
    onTestFinished(state.cleanup);
    const agent = spawnAgent(server, `receipts=${headlessQueue}`, state.dir);
    onTestFinished(() => void agent.kill('SIGKILL'));
    const notReady = `printer ${headlessQueue} (route receipts) is not ready: stopped, paused: Paper out ${suffix}`;
    await waitFor('the not-ready line', () => agent.stderr().includes(notReady), 20_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}; stderr: ${agent.stderr()}`);
      },
    );
    const agentId = JSON.parse(readFileSync(join(state.dir, 'agent.json'), 'utf8')).uuid as string;
    await waitFor('stopped on the server', async () => {
      return (await onServer(agentId, headlessQueue))?.state === 'stopped';
    });

    await execFileAsync('cupsenable', [headlessQueue]);
    await waitFor('the ready line', () => agent.stderr().includes('is ready again'), 20_000);
    await waitFor('idle on the server', async () => {
      return (await onServer(agentId, headlessQueue))?.state === 'idle';
    });
    expect(await agent.kill('SIGTERM')).toBe(0);
    const lines = agent.stderr().split('\n');
    expect(lines.filter((line) => line.includes(`printer ${headlessQueue}`))).toEqual([
      expect.stringMatching(/ warn printer .* is not ready: stopped, paused: Paper out /),
      // It asks for no job meanwhile (docs/agent.md, "Hold, don't fail").
      expect.stringMatching(
        / warn no route can print now \(receipts: printer .* is out of paper: Paper out .*\); jobs wait on the server$/,
      ),
      expect.stringMatching(
        new RegExp(
          ` info printer ${headlessQueue} \\(route receipts\\) is ready again \\(was not ready for \\d+ s\\)$`,
        ),
      ),
    ]);
    // Job lines only on stdout; no job ran.
    expect(agent.stdout()).toBe('');
  }, 60_000);
});
