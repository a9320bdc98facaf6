/**
 * The scripts part of `npm run bench:templates` (`BENCH_ONLY=scripts npx tsx
 * bench/templates.ts`): receipts in scripts the code page lacks (render/script-lines.ts), on
 * the render threads, against their targets (docs/benchmarks.md, "Current figures"):
 * - a 30-line Latin receipt as ESC/POS (p50 ≤ 1 ms), the same with 5 CJK lines as ESC/POS
 *   (p50 ≤ 15 ms) and as a PNG preview (p50 ≤ 30 ms);
 * - the RSS the fonts add (≤ +60 MiB): this process (the server's render pool in it), its
 *   threads warm with Latin receipts, before and after each thread has drawn one line of
 *   each script, so each has loaded HarfBuzz and every face at its first use; then after
 *   20 CJK receipts more a thread (garbage not collected yet counts there too).
 */
import { RenderPool } from '../server/templates/render-pool.ts';
import { fixed, formatTable } from './lib/table.ts';
import { timed } from './lib/timed.ts';
import { load, receiptData, receiptSource } from './templates.ts';

const samples = Number(process.env.BENCH_SAMPLES ?? 300);

/** One line of each script drawn, each in its own face (script-fonts.ts). */
export const scriptLines = {
  cjk: '東京都千代田区丸の内一丁目 谢谢光临',
  thai: 'ขอบคุณที่ใช้บริการ',
  arabic: 'شكرا لزيارتكم',
  hebrew: 'תודה רבה על הקנייה',
  devanagari: 'धन्यवाद, फिर आइए',
};

/** The 30-line receipt with 5 lines of Japanese and Chinese, which print as raster lines. */
const cjkTemplate = () => ({
  kind: 'receipt' as const,
  source: [
    '^^^{{ shop.name }}',
    '東京都千代田区丸の内一丁目',
    'ありがとうございました',
    receiptSource.split('\n').slice(1).join('\n').replace(/\n=$/, ''),
    '谢谢光临，欢迎再来',
    '商品の返品は七日以内 | レシートをお持ちください',
    '又のご来店をお待ちしております',
    '=',
  ].join('\n'),
});

const mib = (bytes: number) => bytes / 1024 / 1024;
const rss = () => process.memoryUsage().rss;

export async function scripts(): Promise<void> {
  const profile = { language: 'escpos' as const, width_mm: 80 as const };
  const pool = new RenderPool();
  const template = { kind: 'receipt' as const, source: receiptSource };
  const cjkReceipt = cjkTemplate();
  const latin = () =>
    pool.render({ companyId: 1, template, data: receiptData, profile, format: 'raw' });
  const cjk = (format: 'raw' | 'png') =>
    pool.render({ companyId: 1, template: cjkReceipt, data: receiptData, profile, format });
  // Two renders at once go to the two threads (one render a thread at a time).
  const onEachThread = (render: () => Promise<unknown>) => Promise.all([render(), render()]);
  // Every thread up and warm with Latin receipts first: what RSS the fonts add is measured.
  for (let i = 0; i < 200; i++) await onEachThread(latin);
  const before = rss();
  for (const line of Object.values(scriptLines)) {
    const source = { kind: 'receipt' as const, source: line };
    await onEachThread(() =>
      pool.render({ companyId: 1, template: source, data: {}, profile, format: 'raw' }),
    );
  }
  const withFonts = rss();
  for (let i = 0; i < 20; i++) await onEachThread(() => cjk('raw'));
  const afterReceipts = rss();
  const escpos = await timed(() => latin(), samples);
  const raster = await timed(() => cjk('raw'), samples / 3);
  const png = await timed(() => cjk('png'), samples / 3);
  await pool.close();
  console.log(`\nScripts on the render threads (load average after: ${load()})`);
  const row = (label: string, run: { p50: number; p95: number; cpu: number }, target: string) => [
    label,
    fixed(run.p50, 3),
    fixed(run.p95, 3),
    fixed(run.cpu, 3),
    target,
  ];
  console.log(
    formatTable(
      ['rendering', 'p50 ms', 'p95 ms', 'CPU ms a run', 'target'],
      [
        row('30-line Latin receipt, ESC/POS', escpos, 'p50 ≤ 1 ms'),
        row('the same with 5 CJK lines, ESC/POS (5 raster lines)', raster, 'p50 ≤ 15 ms'),
        row('the same with 5 CJK lines, PNG preview (80 mm)', png, 'p50 ≤ 30 ms'),
        [
          `RSS: ${fixed(mib(before), 1)} MiB warm, ${fixed(mib(withFonts), 1)} MiB after a line of each script on each thread`,
          '',
          '',
          '',
          `+${fixed(mib(withFonts - before), 1)} MiB (≤ +60)`,
        ],
        [
          `RSS after 20 CJK receipts more a thread: ${fixed(mib(afterReceipts), 1)} MiB`,
          '',
          '',
          '',
          `+${fixed(mib(afterReceipts - before), 1)} MiB`,
        ],
      ],
    ),
  );
}
