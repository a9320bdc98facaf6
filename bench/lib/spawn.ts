import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface RunningServer {
  name: string;
  /** Origin, e.g. http://127.0.0.1:40123 */
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The servers running now: killed when the bench exits, however it exits. */
const running = new Set<ChildProcess>();
let reaping = false;

/**
 * A bench stopped by Ctrl-C or `kill` must not leave its servers behind: they would go on
 * using the CPU (on PostgreSQL, retrying a database the bench dropped) and skew every run
 * after it.
 */
function reapOnExit(): void {
  if (reaping) return;
  reaping = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => process.exit(code));
  }
}

/**
 * Starts a server in its own process (so it never shares an event loop with the load
 * generator) and waits for the first stdout line holding its URL.
 */
export async function startServer(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  reapOnExit();
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: no URL within 20 s\n${stderr}`)),
      20_000,
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const found = /https?:\/\/[^\s/]+/.exec(line);
      if (!found) return;
      clearTimeout(timer);
      lines.close();
      child.stdout!.resume();
      resolve(found[0]);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening\n${stderr}`));
    });
  });
  return {
    name,
    origin,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * CPU time (user + system) a process has used, in seconds, from /proc (Linux); null
 * elsewhere. Per request it is steadier than requests/s on a shared machine: other
 * processes stealing the CPU lower the throughput, not the work each request costs.
 */
export function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** The resident memory of process `pid` in MiB (`VmRSS`, /proc/PID/status), or null once it is gone. */
export function rssMiBOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux build that matters here. */
const ticksPerSecond = 100;

/** `BENCH_CPU_PROF=DIR`: each server writes a V8 CPU profile, NAME.cpuprofile, when it stops. */
export function profileFlags(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
}
