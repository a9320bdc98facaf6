import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireProgram } from '../helpers/system-programs.ts';

/**
 * The README's walk, run as a newcomer runs it: `npm start` in a checkout, the `TOKEN=` and
 * `AGENT_TOKEN=` lines it prints pasted into a shell, then every shell block of "A walk with
 * curl" and "Printing: a job from the API to paper" as written, the agent block in the
 * background (its own terminal in the README). Two liberties, both what a person does: the
 * server runs on a free port instead of 8080 (the address is replaced), and "a moment later"
 * is a wait for the history to say printed.
 *
 * The checkout is a scratch folder whose package.json, .npmrc, bin and node_modules link to
 * this repository's, so ./data and ./printed land there, not here.
 */

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The ```sh blocks of the README section under `heading`, in order. */
function shellBlocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

let checkout: string;
let server: ChildProcess | undefined;
let serverOut = '';
let env: NodeJS.ProcessEnv;

/**
 * Stops a process started `detached` and everything it started (npm → sh → node), by its
 * process group, and waits until the last of them is gone: they write on their way out
 * (Node's compile cache), and the scratch folder is removed only after that.
 */
async function stopGroup(pid: number | undefined): Promise<void> {
  if (!pid) return;
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      process.kill(-pid, name);
      return true;
    } catch {
      return false; // ESRCH: no process of the group is left
    }
  };
  if (!signal('SIGTERM')) return;
  const deadline = Date.now() + 10_000;
  while (signal(0)) {
    if (Date.now() > deadline) signal('SIGKILL');
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

beforeAll(async () => {
  await requireProgram('curl');
  checkout = mkdtempSync(join(tmpdir(), 'shopdesk-readme-'));
  for (const entry of ['package.json', '.npmrc', 'bin', 'node_modules']) {
    symlinkSync(join(root, entry), join(checkout, entry));
  }
  mkdirSync(join(checkout, 'npm-cache'));
  env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(SHOPDESK_|DATABASE_URL$|npm_)/i.test(name)) delete env[name];
  }
  // npx keeps a link to the checkout in its cache, the agent its id in the state folder,
  // and npm (on the Node 24 of node_modules/.bin here) compiled code in Node's compile cache:
  // all inside the scratch folder, so nothing outlives the test.
  env.npm_config_cache = join(checkout, 'npm-cache');
  env.XDG_STATE_HOME = join(checkout, 'state');
  env.NODE_COMPILE_CACHE = join(checkout, 'compile-cache');

  server = spawn('npm', ['start', '--', '--port', '0'], {
    cwd: checkout,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk: Buffer) => {
    serverOut += chunk.toString();
  });
  let serverErr = '';
  server.stderr!.on('data', (chunk: Buffer) => {
    serverErr += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (!/^AGENT_TOKEN=\S+$/m.test(serverOut)) {
    if (Date.now() > deadline || server.exitCode !== null) {
      throw new Error(`npm start did not print the tokens:\n${serverOut}\n${serverErr}`);
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
}, 60_000);

afterAll(async () => {
  await stopGroup(server?.pid);
  if (checkout) rmSync(checkout, { recursive: true, force: true });
});

describe('the README walk', () => {
  it('npm start says where the API and its docs are, and prints the two tokens', () => {
    expect(serverOut).toMatch(/^ShopDesk API listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/m);
    expect(serverOut).toMatch(/^API docs.*http:\/\/127\.0\.0\.1:\d+\/api\/v1\/docs$/m);
    expect(serverOut).toMatch(/^TOKEN=sd_[\w-]+$/m);
    expect(serverOut).toMatch(/^AGENT_TOKEN=sd_[\w-]+$/m);
  });

  it('every command of the walk and of printing succeeds as written', async () => {
    const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(serverOut)![1]!;
    const pasted = serverOut.split('\n').filter((line) => /^(AGENT_)?TOKEN=/.test(line));
    const blocks = [
      ...shellBlocks('A walk with curl'),
      ...shellBlocks('Printing: a job from the API to paper'),
    ].map((block) => block.replaceAll('http://127.0.0.1:8080', origin));
    expect(blocks.length).toBeGreaterThanOrEqual(5);

    const script = [
      'set -euo pipefail',
      // An HTTP error fails the walk: `curl -s` alone would print the error body and go on.
      'curl() { command curl --fail-with-body --show-error "$@"; echo; }',
      ...pasted,
      ...blocks.map((block) => {
        if (/^npx shopdesk agent /m.test(block)) {
          return `( ${block.trim()} ) > agent.log 2>&1 &`;
        }
        if (block.includes('printed/')) {
          // "A moment later": until the history says printed (10 s at most).
          const wait =
            'for _ in $(seq 100); do command curl -s -H "Authorization: Bearer $TOKEN" ' +
            '"$API/printing/history" | grep -q \'"status":"printed"\' && break; sleep 0.1; done';
          return `${wait}\n${block}`;
        }
        return block;
      }),
    ].join('\n');

    const walk = spawn('bash', ['-c', script], {
      cwd: checkout,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    walk.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    walk.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => walk.once('exit', done));
    // The agent is still running in the background, in the walk's process group.
    await stopGroup(walk.pid);
    const agentLog = (() => {
      try {
        return readFileSync(join(checkout, 'agent.log'), 'utf8');
      } catch {
        return '';
      }
    })();
    expect(code, `${err}\n${out}\nagent:\n${agentLog}`).toBe(0);

    expect(out).toContain('"status":"ok"');
    expect(out).toContain('"name":"Demo Shop"');
    expect(out).toContain('"name":"Ada Lovelace"');
    expect(out).toMatch(/"stock":\{"quantity":12,"balances":\[\{[^}]*"warehouse_code":"MAIN"/);
    expect(out).toContain('Thank you!');
    expect(out).toContain('"status":"printed"');
    expect(readFileSync(join(checkout, 'printed', '1.txt'), 'utf8')).toBe('Thank you!');
  });
});
