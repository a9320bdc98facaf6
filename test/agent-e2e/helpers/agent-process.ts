import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** `shopdesk agent …` (or any `shopdesk` command) as a child process, its output collected. */
export interface ShopdeskProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  /** Kills it by pid with `signal` if it still runs, and waits for it to go. */
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

export const shopdeskBin = join(import.meta.dirname, '../../../bin/shopdesk.js');

export function spawnShopdesk(args: string[], env: NodeJS.ProcessEnv = {}): ShopdeskProcess {
  const child = spawn(process.execPath, [shopdeskBin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SHOPDESK_LOG_LEVEL: 'silent', ...env },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  let gone = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      gone = true;
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async kill(signal = 'SIGTERM') {
      if (!gone && child.pid !== undefined) process.kill(child.pid, signal);
      return exited;
    },
  };
}

/** The arguments of `shopdesk agent` with `server`'s agent token, one route (`name=printer`), its state in `stateDir`. */
export function agentArgs(
  server: { url: string; token: string },
  route: string,
  stateDir: string,
): string[] {
  return [
    'agent',
    '--server',
    server.url,
    '--token',
    server.token,
    '--route',
    route,
    '--state-dir',
    stateDir,
  ];
}

/** `shopdesk agent` started with `agentArgs`. */
export function spawnAgent(
  server: { url: string; token: string },
  route: string,
  stateDir: string,
): ShopdeskProcess {
  return spawnShopdesk(agentArgs(server, route, stateDir));
}
