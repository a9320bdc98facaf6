import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, shopdeskProcess } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ShopdeskProcess, spawnShopdesk } from './helpers/agent-process.ts';
import { agentProcessFixture } from './helpers/process-fixture.ts';

/**
 * `shopdesk agent` enrolled with a code from `shopdesk enrollment create`, and one agent per
 * state directory, as processes against the real server (docs/agent.md, "Enrolment" and
 * "One agent per state directory").
 */
const fixture = agentProcessFixture('shopdesk-e2e-fleet-');
const { cleanups } = fixture;
let runs = 0;

/**
 * A code from `shopdesk enrollment create`, as a process of its own: it writes to the SQLite
 * file the server in this process is busy on, and in one thread its wait for the write lock
 * held up the server's commit that would free it ('database is locked' in a CI run;
 * test/helpers/shopdesk-cli.ts).
 */
const newCode = async (...args: string[]) => {
  const run = await shopdeskProcess(
    {},
    'enrollment',
    'create',
    '--company',
    String(fixture.server.companyId),
    '--db',
    fixture.server.dbFile,
    ...args,
  );
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
};

function startAgent(args: string[], stateDir: string, out: string): ShopdeskProcess {
  const agent = spawnShopdesk([
    'agent',
    '--server',
    fixture.server.url,
    '--route',
    `receipts=folder:${out}`,
    '--state-dir',
    stateDir,
    ...args,
  ]);
  cleanups.push(() => agent.kill('SIGKILL'));
  return agent;
}

const fresh = () => {
  runs += 1;
  return { stateDir: join(fixture.dir, `state-${runs}`), out: join(fixture.dir, `out-${runs}`) };
};

async function printsAJob(out: string, title: string): Promise<void> {
  const job = await fixture.server.createJob({ route: 'receipts', title, content: title });
  await waitFor(
    `job ${job.id} printed`,
    async () => (await fixture.server.job(job.id)).status === 'printed',
    20_000,
  );
  expect((await readdir(out)).some((name) => name.includes(title))).toBe(true);
}

describe('enrolment', () => {
  it('enrols once with --enroll, keeps the token 0600 in a 0700 state directory, and starts again with it', async () => {
    const code = await newCode('--routes', 'receipts', '--expires-in', '15m');
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const { stateDir, out } = fresh();
    const first = startAgent(['--enroll', code], stateDir, out);
    await waitFor('enrolled', () => first.stderr().includes('enrolled as agent'), 20_000);
    await printsAJob(out, 'enrolled-first');
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(stateDir, 'agent-token'))).mode & 0o777).toBe(0o600);
    const token = (await readFile(join(stateDir, 'agent-token'), 'utf8')).trim();
    expect(token).toMatch(/^sd_/);
    expect(first.stderr()).not.toContain(token);
    expect(await first.kill('SIGTERM')).toBe(0);

    // The unit keeps --enroll on its command line: the used code is not traded again.
    const second = startAgent(['--enroll', code], stateDir, out);
    await waitFor('connected', () => second.stderr().includes('connected;'), 20_000);
    expect(second.stderr()).toContain('enrolled already');
    await printsAJob(out, 'enrolled-second');
    expect(await second.kill('SIGTERM')).toBe(0);
  });

  it('exits 77 with the reason when the code is used up', async () => {
    const code = await newCode('--routes', 'receipts');
    const a = fresh();
    const first = startAgent(['--enroll', code], a.stateDir, a.out);
    await waitFor('enrolled', () => first.stderr().includes('enrolled as agent'), 20_000);
    const b = fresh();
    const second = startAgent(['--enroll', code], b.stateDir, b.out);
    expect(await second.exited).toBe(77);
    expect(second.stderr()).toContain(
      'the server refused the enrolment: This enrolment code has been used up (1 of 1 agent enrolled); ask IT for a new code.',
    );
  });
});

/** The state and uses of the newest code (`shopdesk enrollment list`, newest first): `active 0/1`. */
async function newestCodeState(): Promise<string> {
  const lines = (
    await ok(
      'enrollment',
      'list',
      '--company',
      String(fixture.server.companyId),
      '--db',
      fixture.server.dbFile,
    )
  ).split('\n');
  return lines[0]!.split('\t').slice(1, 3).join(' ');
}

describe('enrolment that cannot lock anyone out', () => {
  it('refuses an agent asking for a route the code does not grant, naming what it grants, and the code still enrols a matching agent', async () => {
    const code = await newCode('--routes', 'receipts');
    const wrong = fresh();
    const refused = spawnShopdesk([
      'agent',
      '--server',
      fixture.server.url,
      '--route',
      `labels=folder:${wrong.out}`,
      '--state-dir',
      wrong.stateDir,
      '--enroll',
      code,
    ]);
    cleanups.push(() => refused.kill('SIGKILL'));
    expect(await refused.exited).toBe(77);
    expect(refused.stderr()).toContain(
      'the server refused the enrolment: This enrolment code grants the route receipts, and this agent asks for the route labels; nothing was used, the code still works.',
    );
    expect(await newestCodeState()).toBe('active 0/1');
    const right = fresh();
    const agent = startAgent(['--enroll', code], right.stateDir, right.out);
    await waitFor('enrolled', () => agent.stderr().includes('enrolled as agent'), 20_000);
    await printsAJob(right.out, 'granted-route');
    expect(await newestCodeState()).toBe('used_up 1/1');
  });

  it('a usage error found before the trade leaves the code unspent', async () => {
    const code = await newCode('--routes', 'receipts');
    const { stateDir, out } = fresh();
    const agent = spawnShopdesk([
      'agent',
      '--server',
      fixture.server.url,
      '--route',
      `receipts=folder:${out}`,
      '--profile',
      'receipts=not json',
      '--state-dir',
      stateDir,
      '--enroll',
      code,
    ]);
    cleanups.push(() => agent.kill('SIGKILL'));
    expect(await agent.exited).toBe(2);
    expect(agent.stderr()).toContain('--profile receipts: not JSON');
    expect(await newestCodeState()).toBe('active 0/1');
  });
});

describe('one agent per state directory', () => {
  it('a second headless agent on the same directory exits at once naming the first one and the directory', async () => {
    const { stateDir, out } = fresh();
    const env = ['--token', fixture.server.token];
    const first = startAgent(env, stateDir, out);
    await waitFor('connected', () => first.stderr().includes('connected;'), 20_000);
    const second = startAgent(env, stateDir, `${out}-second`);
    expect(await second.exited).toBe(75);
    expect(second.stderr()).toContain(`another agent (pid ${first.child.pid}, since `);
    expect(second.stderr()).toContain(`is running on the state directory ${stateDir}`);
    await printsAJob(out, 'first-still-prints');
  });

  it('after kill -9 the next agent takes the stale lock over and prints', async () => {
    const { stateDir, out } = fresh();
    const env = ['--token', fixture.server.token];
    const first = startAgent(env, stateDir, out);
    await waitFor('connected', () => first.stderr().includes('connected;'), 20_000);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');
    const lock = JSON.parse(await readFile(join(stateDir, 'agent.lock'), 'utf8'));
    expect(lock.pid).toBe(first.child.pid);
    const second = startAgent(env, stateDir, out);
    await waitFor('connected', () => second.stderr().includes('connected;'), 20_000);
    await printsAJob(out, 'after-kill');
    const taken = JSON.parse(await readFile(join(stateDir, 'agent.lock'), 'utf8'));
    expect(taken.pid).toBe(second.child.pid);
    expect(await second.kill('SIGTERM')).toBe(0);
    await expect(stat(join(stateDir, 'agent.lock'))).rejects.toThrow(/ENOENT/);
  });
});
