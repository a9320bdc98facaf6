import type { TemplateSource } from '../../server/templates/render-document.ts';
import { RenderPool } from '../../server/templates/render-pool.ts';
import type { RenderTask } from '../../server/templates/render-thread.ts';
import renderOnThisThread from '../../server/templates/render-thread.ts';
import { fixed } from './table.ts';
import { cpuByThread, threadCpu } from './thread-cpu.ts';
import { type Timing, timed } from './timed.ts';

const profile = { language: 'escpos' as const, width_mm: 80 as const };

/** A receipt of one word: through the pool, what the hop costs with next to no render. */
const oneWord = { kind: 'receipt' as const, source: 'ShopDesk' };

interface Measured extends Timing {
  /** CPU ms a run by kind of thread (`thread-cpu.ts`). */
  byThread: string;
}

/** `timed`, with the CPU of each kind of thread over the timed runs. */
async function timedByThread(run: () => Promise<unknown>, count: number): Promise<Measured> {
  let before = new Map<string, number>();
  const timing = await timed(run, count, () => {
    before = threadCpu();
  });
  return { ...timing, byThread: cpuByThread(before, threadCpu(), count) };
}

/** The receipt through a pool of the server's threads at `niceness`, and a one-word receipt. */
async function throughPool(
  template: TemplateSource,
  data: object,
  niceness: number,
  samples: number,
): Promise<{ receipt: Measured; word: Measured }> {
  const pool = new RenderPool({ niceness });
  try {
    const render = (what: TemplateSource, with_: object) => () =>
      pool.render({ companyId: 1, template: what, data: with_, profile, format: 'raw' });
    return {
      receipt: await timedByThread(render(template, data), samples),
      word: await timedByThread(render(oneWord, {}), samples),
    };
  } finally {
    await pool.close();
  }
}

/**
 * The ESC/POS receipt as the server renders it, through the render pool (the hop there and
 * back included), with what the hop costs taken apart: the same pool with its threads at
 * nice 0 (the server's are at 19, `SHOPDESK_RENDER_NICE`), the render thread's own function
 * called on this thread (the same work, no hop: like with like), and a one-word receipt
 * through the pool (the hop with next to no render). Rows for `bench/templates.ts`'s table,
 * and the CPU a render by kind of thread.
 */
export async function escposHop(
  template: TemplateSource,
  data: object,
  samples: number,
): Promise<{ rows: string[][]; byThread: string[] }> {
  const atNice19 = await throughPool(template, data, 19, samples);
  const atNice0 = await throughPool(template, data, 0, samples);
  const task = (): RenderTask => ({
    template,
    data,
    profile,
    format: 'raw',
    started: new SharedArrayBuffer(8),
  });
  const here = await timedByThread(() => renderOnThisThread(task()), samples);
  const row = (name: string, m: Timing, target = '') => [
    name,
    fixed(m.p50, 3),
    fixed(m.p95, 3),
    fixed(m.cpu, 3),
    target,
  ];
  return {
    rows: [
      row(
        'ESC/POS (Liquid + ReceiptLine), through the pool (threads at nice 19)',
        atNice19.receipt,
        'p50 ≤ 1 ms',
      ),
      row("the same, the pool's threads at nice 0", atNice0.receipt),
      row('the same task on the calling thread (no hop)', here),
      row('a one-word receipt through the pool (nice 19): the hop', atNice19.word),
      row('a one-word receipt through the pool (nice 0)', atNice0.word),
    ],
    byThread: [
      `through the pool (nice 19): ${atNice19.receipt.byThread}`,
      `through the pool (nice 0):  ${atNice0.receipt.byThread}`,
      `on the calling thread:      ${here.byThread}`,
      `one word, pool (nice 19):   ${atNice19.word.byThread}`,
    ],
  };
}
