import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tokenRefusedExitCode } from '../../agent/core/cli.ts';
import { defaultStopGraceMs, finalDeliveryMs } from '../../agent/core/runtime/agent-runtime.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../helpers/real-agent-server.ts';
import { systemdAnalyzeVerify } from '../helpers/system-programs.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The systemd unit agent/service/shopdesk-agent.service. systemd is not PID 1 in the
 * containers the tests run in, so the unit cannot be started here: `systemd-analyze verify`
 * checks it, and its ExecStart= runs as a process the way systemd would run it (the
 * specifiers %d and %S replaced, the credential where LoadCredential= puts it, with the mode
 * systemd gives it), against the real server.
 */
const repo = join(import.meta.dirname, '../..');
const unitFile = join(repo, 'agent/service/shopdesk-agent.service');

/** `[Service]`'s settings, continuation lines joined; a key given twice keeps both values. */
function serviceSettings(): Map<string, string[]> {
  const text = readFileSync(unitFile, 'utf8').replace(/\\\n\s*/g, ' ');
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    if (section !== 'Service') continue;
    const equals = line.indexOf('=');
    const key = line.slice(0, equals);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(equals + 1)]);
  }
  return settings;
}

const setting = (key: string) => serviceSettings().get(key)?.at(-1);

let server: RealAgentTestServer;
let dir: string;
const running: ChildProcess[] = [];

beforeAll(async () => {
  server = await startRealAgentTestServer();
  dir = await mkdtemp(join(tmpdir(), 'shopdesk-e2e-unit-'));
});
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * ExecStart= as systemd would run it, with this machine's paths and the test's server and
 * route in place of the example ones, and the token where LoadCredential= copies it.
 */
async function startAsSystemd(token: string, name: string) {
  const credentials = join(dir, name, 'credentials');
  const stateRoot = join(dir, name, 'lib');
  const out = join(dir, name, 'out');
  await mkdir(credentials, { recursive: true });
  await mkdir(stateRoot, { recursive: true });
  const [credential, source] = setting('LoadCredential')!.split(':');
  expect(source).toBe('/etc/shopdesk/agent-token');
  await writeFile(join(credentials, credential!), token);
  // What systemd's ACL mask shows for the service's user: readable by the owner and the mask.
  await chmod(join(credentials, credential!), 0o440);
  const command = setting('ExecStart')!
    .split(/\s+/)
    .map((word) =>
      word
        .replace(/^\/usr\/bin\/node$/, process.execPath)
        .replace(/^\/opt\/shopdesk\//, `${repo}/`)
        .replace(/^%d\//, `${credentials}/`)
        .replace(/^%S\//, `${stateRoot}/`)
        .replace(/^https:\/\/shopdesk\.example\.com$/, server.url)
        .replace(/^receipts=EPSON_TM_T20$/, `receipts=folder:${out}`),
    );
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CREDENTIALS_DIRECTORY: credentials },
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, exited, out, stateRoot, stdout: () => stdout, stderr: () => stderr, command };
}

describe('agent/service/shopdesk-agent.service', () => {
  it('passes systemd-analyze verify without a word', async () => {
    const { stdout, stderr } = await systemdAnalyzeVerify(unitFile);
    expect(stderr).toBe('');
    expect(stdout).toBe('');
  });

  it('keeps in step with the agent: the token-refused exit code, and a stop timeout past the grace', () => {
    expect(setting('RestartPreventExitStatus')).toBe(String(tokenRefusedExitCode));
    expect(setting('Restart')).toBe('on-failure');
    expect(setting('KillMode')).toBe('mixed');
    const timeout = /^(\d+)s$/.exec(setting('TimeoutStopSec') ?? '');
    expect(Number(timeout?.[1]) * 1000).toBeGreaterThan(defaultStopGraceMs + finalDeliveryMs);
    expect(setting('ExecStart')).toContain('--token-file %d/agent-token');
    expect(setting('ExecStart')).toContain('--state-dir %S/shopdesk-agent');
    expect(setting('StateDirectory')).toBe('shopdesk-agent');
    // No token in the unit itself, in its environment or on the command line.
    expect(readFileSync(unitFile, 'utf8')).not.toMatch(/sd_|--token |SHOPDESK_AGENT_TOKEN=/);
  });

  it('its ExecStart prints jobs with the credential, says nothing of its mode, and stops on SIGTERM with 0', async () => {
    const agent = await startAsSystemd(`${server.token}\n`, 'good');
    expect(agent.command).not.toContain(server.token);
    const job = await server.createJob({ route: 'receipts', title: 'unit', content: 'paper' });
    await waitFor(
      'printed',
      async () => (await server.job(job.id)).status === 'printed',
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; stderr: ${agent.stderr()}`);
    });
    expect(await readdir(agent.out)).toEqual([`${job.id}-unit.txt`]);
    expect(await readdir(join(agent.stateRoot, 'shopdesk-agent'))).toContain('agent.json');
    expect(agent.stderr()).not.toContain('can be read by other users');
    // KillMode=mixed: SIGTERM to the agent alone, which stops cleanly.
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  }, 60_000);

  it('its ExecStart ends with the exit code RestartPreventExitStatus= names when the token is refused', async () => {
    const agent = await startAsSystemd('sd_revoked-long-ago\n', 'refused');
    expect(await agent.exited).toBe(Number(setting('RestartPreventExitStatus')));
    expect(agent.stderr()).toContain('exiting with code 77 (token refused)');
  }, 60_000);
});
