import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks a second of /proc's utime and stime (`getconf CLK_TCK`: 100 on Linux). */
const ticksPerSecond = 100;

/**
 * CPU ms each kind of thread of this process has used, by its name in /proc (Node names its
 * threads: `MainThread`, `WorkerThread` for a worker such as a render thread, `V8Worker` for
 * V8's helpers that collect garbage and compile for every isolate, `libuv-worker`). Empty where
 * there is no /proc. Ticks are 10 ms: read it over thousands of runs.
 */
export function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const task of tasks) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
    byName.set(name, (byName.get(name) ?? 0) + ms);
  }
  return byName;
}

/** `after` less `before`, a run (`runs` of them), as `name 0.123` pairs; threads unused left out. */
export function cpuByThread(
  before: Map<string, number>,
  after: Map<string, number>,
  runs: number,
): string {
  return [...after]
    .map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / runs] as const)
    .filter(([, ms]) => ms > 0)
    .map(([name, ms]) => `${name} ${ms.toFixed(3)}`)
    .join(', ');
}
