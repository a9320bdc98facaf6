const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** What `timed` measured: wall time in ms (p50, p95) and this process's CPU ms a run. */
export interface Timing {
  p50: number;
  p95: number;
  cpu: number;
}

/**
 * p50 and p95 wall time in ms of `run`, after a warm-up of a second (and at least a tenth of
 * the samples: a server renders thousands of receipts, and V8 optimises a function after some
 * hundreds of calls, so a shorter warm-up measured the unoptimised code), and the mean CPU
 * time of this process a run, every thread counted (the steadier figure on a loaded machine:
 * waiting for a core lengthens the wall time, not the work).
 */
export async function timed(run: () => Promise<unknown>, count: number): Promise<Timing> {
  const warmUntil = performance.now() + 1000;
  for (let i = 0; i < Math.max(5, count / 10) || performance.now() < warmUntil; i++) await run();
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    cpu: (cpu.user + cpu.system) / 1000 / count,
  };
}
