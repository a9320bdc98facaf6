import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempCopyPrefixFor } from '../../agent/core/printers/temp-copies.ts';
import { deleteQueue, lpadmin, startTestCups } from '../helpers/cups.ts';
import { closedPort } from '../helpers/ports.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ShopdeskProcess, spawnShopdesk } from './helpers/agent-process.ts';

/**
 * What `shopdesk agent` says and does at start, as a process: the routes whose printer it
 * cannot print on, a CUPS that is not running, and the temporary copies an earlier run left.
 */
const suffix = randomBytes(3).toString('hex');
const existingQueue = `shopdesk-e2e-start-${suffix}`;
const missingQueue = `shopdesk-e2e-missing-${suffix}`;
let server: RealAgentTestServer;
let dir: string;

beforeAll(async () => {
  await startTestCups();
  await lpadmin(['-p', existingQueue, '-E', '-v', 'socket://127.0.0.1:9']);
  server = await startRealAgentTestServer();
  dir = await mkdtemp(join(tmpdir(), 'shopdesk-e2e-start-'));
});
afterAll(async () => {
  await server?.close();
  await deleteQueue(existingQueue);
  await rm(dir, { recursive: true, force: true });
});

/** An agent killed at the end of the test that started it (`finished`: that test's own hook). */
function startAgent(
  finished: (cleanup: () => Promise<void>) => void,
  routes: string[],
  env: NodeJS.ProcessEnv = {},
  serverUrl = server.url,
) {
  const stateDir = join(dir, `state-${randomBytes(3).toString('hex')}`);
  const agent = spawnShopdesk(
    [
      'agent',
      '--server',
      serverUrl,
      ...routes.flatMap((route) => ['--route', route]),
      '--state-dir',
      stateDir,
    ],
    { SHOPDESK_AGENT_TOKEN: server.token, ...env },
  );
  finished(async () => {
    await agent.kill('SIGKILL');
  });
  return { agent, stateDir };
}

const linesWith = (agent: ShopdeskProcess, text: string) =>
  agent
    .stderr()
    .split('\n')
    .filter((line) => line.includes(text));

// Each of these watches its own agent for more than one round of the printer watch (5 s):
// side by side, the two rounds pass once instead of twice.
describe('shopdesk agent at start: printers it cannot print on', () => {
  it.concurrent('says, one line each, which route has a printer this computer does not have; the rest are quiet', async ({
    expect,
    onTestFinished,
  }) => {
    const { agent } = startAgent(onTestFinished, [
      `ghost=${missingQueue}`,
      `real=${existingQueue}`,
    ]);
    await waitFor('connected', () => agent.stderr().includes(' info connected'), 30_000);
    expect(linesWith(agent, `printer ${missingQueue}`)).toEqual([
      expect.stringMatching(
        new RegExp(
          ` warn printer ${missingQueue} \\(route ghost\\) is not ready: not found on this computer$`,
        ),
      ),
    ]);
    // Said before the server was even asked: the line comes first.
    const stderr = agent.stderr();
    expect(stderr.indexOf(`printer ${missingQueue}`)).toBeLessThan(
      stderr.indexOf(' info connected'),
    );
    expect(linesWith(agent, existingQueue).filter((line) => line.includes('not ready'))).toEqual(
      [],
    );
    expect(agent.stderr()).not.toContain('CUPS is not running');
    // The printer watch reads again every 5 s: the line is not repeated.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(linesWith(agent, `printer ${missingQueue}`)).toHaveLength(1);
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 60_000);

  it.concurrent('says when CUPS is not running, once, before the routes it leaves without a printer; the server may be away too', async ({
    expect,
    onTestFinished,
  }) => {
    // lp and lpstat ask the scheduler CUPS_SERVER names: nothing listens there.
    const { agent } = startAgent(
      onTestFinished,
      [`receipts=${existingQueue}`],
      { CUPS_SERVER: `127.0.0.1:${await closedPort()}` },
      `http://127.0.0.1:${await closedPort()}`,
    );
    await waitFor(
      'the route line',
      () => linesWith(agent, `printer ${existingQueue}`).length > 0,
      30_000,
    );
    const cupsLines = linesWith(agent, 'CUPS');
    expect(cupsLines).toEqual([
      expect.stringMatching(
        / warn CUPS is not running \(lpstat -r: scheduler is not running\): the routes' printers cannot print until it runs$/,
      ),
    ]);
    const stderr = agent.stderr();
    expect(stderr.indexOf('CUPS is not running')).toBeLessThan(stderr.indexOf(existingQueue));
    expect(linesWith(agent, `printer ${existingQueue}`)).toEqual([
      expect.stringMatching(/\(route receipts\) is not ready: not found on this computer$/),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(linesWith(agent, 'CUPS')).toHaveLength(1);
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 60_000);
});

describe('shopdesk agent at start: temporary copies', () => {
  it('removes the copies an earlier run of this agent left in the temporary folder, and no others', async ({
    onTestFinished,
  }) => {
    const agentTmp = join(dir, `tmp-${randomBytes(3).toString('hex')}`);
    await mkdir(agentTmp);
    const stateDir = join(dir, 'state-with-leftovers');
    const own = `${tempCopyPrefixFor(stateDir)}AbC123`;
    const otherAgent = `${tempCopyPrefixFor(join(dir, 'another-agent'))}XyZ789`;
    const unrelated = ['shopdesk-print-q1w2e3', 'something-else'];
    for (const name of [own, otherAgent, ...unrelated]) {
      await mkdir(join(agentTmp, name));
      await writeFile(join(agentTmp, name, 'job-7'), Buffer.alloc(1024, 'x'));
    }
    const agent = spawnShopdesk(
      [
        'agent',
        '--server',
        `http://127.0.0.1:${await closedPort()}`,
        '--route',
        `receipts=folder:${join(dir, 'out')}`,
        '--state-dir',
        stateDir,
      ],
      { SHOPDESK_AGENT_TOKEN: server.token, TMPDIR: agentTmp },
    );
    onTestFinished(async () => {
      await agent.kill('SIGKILL');
    });
    await waitFor('the starting line', () => agent.stderr().includes(' starting; server '), 30_000);
    expect(existsSync(join(agentTmp, own))).toBe(false);
    expect((await readdir(agentTmp)).sort()).toEqual([otherAgent, ...unrelated].sort());
    expect(linesWith(agent, 'temporary')).toEqual([
      expect.stringMatching(
        / info removed 1 temporary copy of documents an earlier run left behind$/,
      ),
    ]);
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 60_000);
});
