import type { TemplateSource } from '../../server/templates/render-document.ts';
import { RenderPool } from '../../server/templates/render-pool.ts';
import type { RenderTask } from '../../server/templates/render-thread.ts';
import renderOnThisThread from '../../server/templates/render-thread.ts';
import { fixed } from './table.ts';
import { cpuByThread, threadCpu } from './thread-cpu.ts';
import type { Timing } from './timed.ts';

const profile = { language: 'escpos' as const, width_mm: 80 as const };

/** A receipt of one word: through the pool, what the hop costs with next to no render. */
const oneWord = { kind: 'receipt' as const, source: 'ShopDesk' };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** Wall time in ms of a run. */
type Wall = Pick<Timing, 'p50' | 'p95'>;

/**
 * Each of `runs` timed `count` times, in turns (one of each, then again), so that a busy
 * moment of a shared machine hits them alike; after a warm-up of a second in turns (at least
 * a tenth of the samples each).
 */
async function inTurns(runs: (() => Promise<unknown>)[], count: number): Promise<Wall[]> {
  const warmUntil = performance.now() + 1000;
  for (let i = 0; i < Math.max(5, count / 10) || performance.now() < warmUntil; i++) {
    for (const run of runs) await run();
  }
  const times = runs.map(() => [] as number[]);
  for (let i = 0; i < count; i++) {
    for (const [at, run] of runs.entries()) {
      const start = performance.now();
      await run();
      times[at]!.push(performance.now() - start);
    }
  }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    return { p50: percentile(list, 0.5), p95: percentile(list, 0.95) };
  });
}

/**
 * CPU ms a run of `run`, over `count` runs in a row: this process's (every thread), and by
 * kind of thread (`thread-cpu.ts`). In a row, not in turns: what V8's helpers do for one
 * thread's garbage would be counted to the next run.
 */
async function cpuOf(
  run: () => Promise<unknown>,
  count: number,
): Promise<{ cpu: number; byThread: string }> {
  const [before, cpuBefore] = [threadCpu(), process.cpuUsage()];
  for (let i = 0; i < count; i++) await run();
  const used = process.cpuUsage(cpuBefore);
  return {
    cpu: (used.user + used.system) / 1000 / count,
    byThread: cpuByThread(before, threadCpu(), count),
  };
}

/**
 * The ESC/POS receipt as the server renders it, through the render pool (the hop there and
 * back included), with the hop taken apart: the pool with its threads at nice 19 (the
 * server's default, `SHOPDESK_RENDER_NICE`) and at nice 0, the render thread's own function
 * called on this thread (the same work, no hop: like with like), and a one-word receipt
 * through each pool (the hop with next to no render). Wall times in turns, CPU in a row.
 * Rows for `bench/templates.ts`'s table, and the CPU a render by kind of thread.
 */
export async function escposHop(
  template: TemplateSource,
  data: object,
  samples: number,
): Promise<{ rows: string[][]; byThread: string[] }> {
  const atNice19 = new RenderPool({ niceness: 19 });
  const atNice0 = new RenderPool({ niceness: 0 });
  try {
    const through = (pool: RenderPool, what: TemplateSource, with_: object) => () =>
      pool.render({ companyId: 1, template: what, data: with_, profile, format: 'raw' });
    const task = (): RenderTask => ({
      template,
      data,
      profile,
      format: 'raw',
      started: new SharedArrayBuffer(8),
    });
    const runs = [
      through(atNice19, template, data),
      through(atNice0, template, data),
      () => renderOnThisThread(task()),
      through(atNice19, oneWord, {}),
      through(atNice0, oneWord, {}),
    ];
    const walls = await inTurns(runs, samples);
    const cpus: { cpu: number; byThread: string }[] = [];
    for (const run of runs) cpus.push(await cpuOf(run, samples));
    const row = (at: number, name: string, target = '') => [
      name,
      fixed(walls[at]!.p50, 3),
      fixed(walls[at]!.p95, 3),
      fixed(cpus[at]!.cpu, 3),
      target,
    ];
    return {
      rows: [
        row(0, 'ESC/POS (Liquid + ReceiptLine), through the pool (nice 19)', 'p50 ≤ 1 ms'),
        row(1, "the same, the pool's threads at nice 0"),
        row(2, 'the same task on the calling thread (no hop)'),
        row(3, 'a one-word receipt through the pool (nice 19): the hop'),
        row(4, 'a one-word receipt through the pool (nice 0)'),
      ],
      byThread: [
        `through the pool (nice 19): ${cpus[0]!.byThread}`,
        `on the calling thread:      ${cpus[2]!.byThread}`,
        `one word, pool (nice 19):   ${cpus[3]!.byThread}`,
      ],
    };
  } finally {
    await Promise.all([atNice19.close(), atNice0.close()]);
  }
}
