import { existsSync, readFileSync } from 'node:fs';
import { chmod, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.ts';
import { shopdeskProcess } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ShopdeskProcess, spawnShopdesk } from './helpers/agent-process.ts';
import { agentProcessFixture } from './helpers/process-fixture.ts';

/**
 * `shopdesk agent` as a service runs it (docs/agent-install.md, "As a service"), as a process
 * against the real server: where its token comes from, and which answers end it.
 */
const fixture = agentProcessFixture('shopdesk-e2e-service-');
const { cleanups } = fixture;

let runs = 0;

/** `shopdesk agent` with a folder route and its own state folder; killed after the test. */
function startAgent(options: { args?: string[]; env?: NodeJS.ProcessEnv; server?: string } = {}) {
  const run = ++runs;
  const out = join(fixture.dir, `out-${run}`);
  const stateDir = join(fixture.dir, `state-${run}`);
  const agent = spawnShopdesk(
    [
      'agent',
      '--server',
      options.server ?? fixture.server.url,
      '--route',
      `receipts=folder:${out}`,
      '--state-dir',
      stateDir,
      ...(options.args ?? []),
    ],
    options.env,
  );
  cleanups.push(() => agent.kill('SIGKILL'));
  return { agent, out, stateDir };
}

async function printsAJob(agent: ShopdeskProcess, out: string, title: string): Promise<void> {
  const job = await fixture.server.createJob({ route: 'receipts', title, content: title });
  await waitFor(
    `job ${job.id} printed`,
    async () => (await fixture.server.job(job.id)).status === 'printed',
    30_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; agent stderr: ${agent.stderr()}`);
  });
  expect(await readdir(out)).toContain(`${job.id}-${title}.txt`);
}

const stderrLines = (agent: ShopdeskProcess) => agent.stderr().trim().split('\n');

describe('shopdesk agent: where the token comes from', () => {
  it('takes SHOPDESK_AGENT_TOKEN: the token is not on its command line', async () => {
    const { agent, out } = startAgent({ env: { SHOPDESK_AGENT_TOKEN: fixture.server.token } });
    await printsAJob(agent, out, 'from-env');
    const commandLine = readFileSync(`/proc/${agent.child.pid}/cmdline`, 'utf8');
    expect(commandLine).toContain('agent');
    expect(commandLine).not.toContain(fixture.server.token);
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 60_000);

  it('takes --token-file (its trailing newline trimmed), and warns once when others can read it', async () => {
    const file = join(fixture.dir, 'agent-token');
    await writeFile(file, `${fixture.server.token}\n`);
    await chmod(file, 0o600);
    const private_ = startAgent({ args: ['--token-file', file] });
    await printsAJob(private_.agent, private_.out, 'from-private-file');
    expect(private_.agent.stderr()).not.toContain('can be read by other users');
    expect(await private_.agent.kill('SIGTERM')).toBe(0);

    await chmod(file, 0o644);
    const open = startAgent({ args: ['--token-file', file] });
    await printsAJob(open.agent, open.out, 'from-open-file');
    expect(stderrLines(open.agent).filter((line) => line.includes('--token-file'))).toEqual([
      expect.stringMatching(
        / warn --token-file \S+ can be read by other users \(mode 0644\); make it private: chmod 600 /,
      ),
    ]);
    expect(await open.agent.kill('SIGTERM')).toBe(0);
  }, 90_000);

  it.each([
    [{ args: ['--token', 'sd_a'], env: { SHOPDESK_AGENT_TOKEN: 'sd_b' } }, 'given 2 times'],
    [{ args: ['--token-file', '/dev/null', '--token', 'sd_a'] }, 'given 2 times'],
    [
      { args: [] },
      'no token: set SHOPDESK_AGENT_TOKEN, pass --token-file FILE, or enrol this agent with --enroll CODE',
    ],
    [{ args: ['--token-file', '/no/such/token'] }, 'cannot be read: no such file'],
  ])('refuses %j with one line and exit code 2, writing nothing', async (options, message) => {
    const { agent, stateDir } = startAgent(options);
    expect(await agent.exited).toBe(2);
    expect(agent.stderr()).toMatch(/^error: [^\n]+\n$/);
    expect(agent.stderr()).toContain(message);
    expect(existsSync(stateDir)).toBe(false);
  });
});

describe('shopdesk agent: a refused token ends it with exit code 77', () => {
  it('at start: one line saying so, then exit 77 at once (no retries)', async () => {
    const started = Date.now();
    const { agent } = startAgent({ env: { SHOPDESK_AGENT_TOKEN: 'sd_no-such-token' } });
    expect(await agent.exited).toBe(77);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(agent.stdout()).toBe('');
    const lines = stderrLines(agent);
    expect(lines.filter((line) => line.includes("refused the agent's token"))).toEqual([
      expect.stringMatching(/ error the server refused the agent's token \(401\): /),
    ]);
    expect(lines.at(-1)).toMatch(
      / error exiting with code 77 \(token refused\): the server does not accept this token \(unknown, expired or revoked\); give the agent a valid token with the printing\.agent permission, or enrol it with a new code, then start it again$/,
    );
    expect(agent.stderr()).not.toContain('sd_no-such-token');
    // Asked once: register, refused; nothing else.
    expect(lines.filter((line) => line.includes('server unreachable'))).toEqual([]);
  }, 30_000);

  it('later: a token revoked while it runs (shopdesk token revoke) ends it with 77; its jobs stay queued', async () => {
    const issued = await fixture.server.issueToken(['printing.agent']);
    const { agent, out } = startAgent({ env: { SHOPDESK_AGENT_TOKEN: issued.secret } });
    await printsAJob(agent, out, 'before-revoke');

    // Another process, as an operator runs it: in this one, beside the server busy with the
    // agent, the command's wait for the write lock would hold up the commit that frees it.
    const revoke = await shopdeskProcess(
      {},
      'token',
      'revoke',
      String(issued.id),
      '--db',
      fixture.server.dbFile,
    );
    expect(revoke.code, revoke.stderr).toBe(0);
    const revokedAt = Date.now();
    expect(await agent.exited).toBe(77);
    // The next heartbeat (2 s here) or long-poll (2 s) is refused.
    expect(Date.now() - revokedAt).toBeLessThan(15_000);
    expect(agent.stderr()).toMatch(/ error the server refused the agent's token \(401\)/);
    expect(stderrLines(agent).at(-1)).toMatch(/ error exiting with code 77 \(token refused\)/);

    // Nothing of it is left claiming: a job created now stays queued.
    const after = await fixture.server.createJob({
      route: 'receipts',
      title: 'after',
      content: 'x',
    });
    expect((await fixture.server.job(after.id)).status).toBe('queued');
  }, 60_000);
});

/** Waits until the proxy has answered `status` twice more than it had so far. */
async function answeredTwiceMore(proxy: FaultProxy, status: number): Promise<void> {
  const count = () => proxy.requests.filter((request) => request.status === status).length;
  const before = count();
  await waitFor(`two more ${status} answers`, () => count() >= before + 2, 30_000);
}

describe('shopdesk agent: a server in trouble does not end it', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(fixture.server.url);
  });
  afterAll(() => proxy?.close());

  it('keeps running through 503 answers and a server that is down, then prints', async () => {
    const { agent, out } = startAgent({
      server: proxy.url,
      env: { SHOPDESK_AGENT_TOKEN: fixture.server.token },
    });
    await printsAJob(agent, out, 'before-trouble');

    proxy.mode = 'unavailable';
    await waitFor('503 answers', () => proxy.requests.some((request) => request.status === 503));
    await waitFor('the unreachable line', () => agent.stderr().includes('server unreachable'));
    // It asks again, and again, and is still there.
    await answeredTwiceMore(proxy, 503);
    expect(agent.child.exitCode).toBeNull();
    proxy.mode = 'forward';
    await printsAJob(agent, out, 'after-503');
    await waitFor('the reachable line', () => agent.stderr().includes('server reachable again'));

    await fixture.server.stop();
    // The proxy finds no server behind it (502) each time the agent asks.
    await answeredTwiceMore(proxy, 502);
    expect(agent.child.exitCode).toBeNull();
    await fixture.server.restart();
    await printsAJob(agent, out, 'after-restart');
    expect(agent.child.exitCode).toBeNull();
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 120_000);
});
