/**
 * `npm run bench:templates`: what templates cost, side by side in one run, against the
 * figures they must meet (docs/benchmarks.md, "Current figures"):
 * - the ESC/POS rendering of a 30-line receipt, Liquid included, as the server renders it:
 *   through the render pool, the hop there and back included (target p50 ≤ 1 ms), with the
 *   hop taken apart (`lib/render-hop.ts`): the pool's threads at nice 19 and at 0, the same
 *   task on the calling thread, a one-word receipt through the pool, CPU by thread;
 * - its PNG and PDF previews, on a render thread (p50 ≤ 30 ms);
 * - a 300 px logo (`{% image "logo" %}`, a grey PNG of 300 × 120) printed as ESC/POS on a
 *   render thread: decoded and dithered every time (a different logo each run), and the
 *   same logo again (prepared once, kept by the thread) (p50 ≤ 5 ms);
 * - `POST /printing/jobs` from the template against the same job sent as bytes, on the real
 *   server in its own process (`shopdesk serve`, autocannon; target ≥ 0.5× the req/s);
 * - the same receipt as HTML printed to PDF by headless Chromium, what integrators do today
 *   (ShopDesk's PDF ≥ 20× faster; skipped without /usr/bin/chromium);
 * - receipts in scripts the code page lacks, and the memory their fonts take
 *   (bench/template-scripts.ts).
 * Settings: BENCH_SECONDS (3), BENCH_WARMUP (2), BENCH_CONNECTIONS (10), BENCH_SAMPLES (300),
 * BENCH_ONLY=http, BENCH_ONLY=render or BENCH_ONLY=scripts (one part alone).
 * Run it under `nice` on a shared machine; the load average is printed with the figures.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bitmapToPng } from '../server/templates/render/png.ts';
import { renderDocument } from '../server/templates/render-document.ts';
import { RenderPool } from '../server/templates/render-pool.ts';
import type { PrinterProfile } from '../shared/printer-profiles.ts';
import { type LoadSettings, measure } from './lib/load.ts';
import { escposHop } from './lib/render-hop.ts';
import { fixed, formatTable, ratio } from './lib/table.ts';
import { type Timing, timed } from './lib/timed.ts';
import { startShopDesk } from './servers/index.ts';
import { scripts } from './template-scripts.ts';

const settings: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 2),
  seconds: Number(process.env.BENCH_SECONDS ?? 3),
};
const samples = Number(process.env.BENCH_SAMPLES ?? 300);

export const receiptSource = [
  '^^^{{ shop.name }}',
  '{{ shop.address }}',
  '-',
  'Order | {{ order.number }}',
  'Date | {{ order.date | date: "%Y-%m-%d %H:%M" }}',
  '-',
  '{% for item in items %}{{ item.qty }} x {{ item.name }} | {{ item.price | money }}',
  '{% endfor %}-',
  '^Total | ^{{ order.total | money: "EUR" }}',
  '{code:{{ order.url }}; option:qrcode,4}',
  '=',
].join('\n');

export const receiptData = {
  shop: { name: 'Demo Shop', address: '1 Market Street' },
  order: {
    number: 'A-1042',
    date: '2026-11-25T10:00:00Z',
    total: 123.45,
    url: 'https://shop.example/o/A-1042',
  },
  items: Array.from({ length: 30 }, (_, index) => ({
    qty: 1 + (index % 3),
    name: `Item number ${index + 1}`,
    price: 1.5 + index,
  })),
};

const template = { kind: 'receipt' as const, source: receiptSource };

/**
 * A 300 × 120 logo, a grey PNG: a left-to-right gradient under a pattern of noise (a photo-
 * like logo, which dithering has to work on). `variant` changes one pixel: another image.
 */
function logoPng(variant: number): string {
  const [width, height] = [300, 120];
  let seed = 7;
  const pixels = new Uint8Array(width * height).map((_, i) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.min(255, Math.round(((i % width) * 255) / width) + (seed % 32));
  });
  pixels[0] = variant % 256;
  pixels[1] = Math.floor(variant / 256) % 256;
  return bitmapToPng({ width, height, pixels }).toString('base64');
}

const logoTemplate = (logo: string) => ({
  kind: 'receipt' as const,
  source: '{% image "logo" %}\nDemo Shop\n=',
  assets: { logo },
});
export const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
/** The receipt as an integrator's HTML, for Chromium. */
function receiptHtml(): string {
  const rows = receiptData.items
    .map(
      (item) =>
        `<tr><td>${item.qty} x ${item.name}</td><td class="r">${item.price.toFixed(2)}</td></tr>`,
    )
    .join('');
  return `<!doctype html><html><head><style>body{font-family:monospace;width:72mm;font-size:10pt}td.r{text-align:right}table{width:100%}</style></head><body><h2>${receiptData.shop.name}</h2><p>${receiptData.shop.address}</p><p>Order ${receiptData.order.number}</p><table>${rows}</table><h3>Total ${receiptData.order.total.toFixed(2)} EUR</h3></body></html>`;
}

async function chromiumPdf(count: number) {
  if (!existsSync('/usr/bin/chromium')) return null;
  const { launchChromium } = await import('../test/helpers/chromium.ts');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const html = receiptHtml();
    return await timed(async () => {
      await page.setContent(html);
      await page.pdf({ width: '80mm', printBackground: false });
    }, count);
  } finally {
    await browser.close();
  }
}

/** A database with a company, an integrator's token and the template, for `shopdesk serve`. */
async function seed(dbFile: string): Promise<{ token: string }> {
  const { openStorage } = await import('../server/storage/database.ts');
  const { migrateToLatest } = await import('../server/storage/migrate.ts');
  const { createCompany } = await import('../server/companies/create-company.ts');
  const { createToken } = await import('../server/tokens/create-token.ts');
  const { createTemplate } = await import('../server/templates/create-template.ts');
  const storage = openStorage({ kind: 'sqlite', file: dbFile });
  await migrateToLatest(storage);
  const company = await createCompany(storage.db, 'Bench shop');
  const token = await createToken(storage.db, {
    companyId: company,
    permissions: ['printing.jobs.create', 'printing.jobs.read'],
    name: 'bench',
  });
  await createTemplate(
    storage,
    storage.db,
    company,
    { name: 'receipt', kind: 'receipt', source: receiptSource },
    new Date(),
  );
  await storage.close();
  return { token: token.secret };
}

async function main(): Promise<void> {
  console.log(`templates bench: node ${process.version}, load average ${load()}`);
  await render();
  await scripts();
  await http();
}

async function render(): Promise<void> {
  const profile = { language: 'escpos' as const, width_mm: 80 as const };
  // As the server renders: on its pool's threads (the default: min(2, cores)).
  const pool = new RenderPool();
  const onThread = (format: 'raw' | 'png', on: PrinterProfile = profile) =>
    pool.render({ companyId: 1, template, data: receiptData, profile: on, format });
  const escpos = await escposHop(template, receiptData, samples);
  const png = await timed(() => onThread('png'), samples / 3);
  const pdf = await timed(() => onThread('raw', { language: 'pdf', width_mm: 80 }), samples / 3);
  // More logos than a thread keeps prepared (32), taken in turn: each run decodes and dithers.
  const logos = Array.from({ length: 64 }, (_, i) => logoTemplate(logoPng(i)));
  let turn = 0;
  const logoFresh = await timed(
    () =>
      pool.render({
        companyId: 1,
        template: logos[turn++ % logos.length]!,
        data: {},
        profile,
        format: 'raw',
      }),
    samples,
  );
  const logoKept = await timed(
    () => pool.render({ companyId: 1, template: logos[0]!, data: {}, profile, format: 'raw' }),
    samples,
  );
  await pool.close();
  const afterRender = load();
  const browser = await chromiumPdf(Math.max(10, samples / 15));
  console.log(`\nRendering a 30-line receipt (load average after: ${afterRender})`);
  console.log(
    formatTable(
      ['rendering', 'p50 ms', 'p95 ms', 'CPU ms a run', 'target'],
      [
        ...escpos.rows,
        timingRow('PNG preview, on a render thread', png, 'p50 ≤ 30 ms'),
        timingRow('PDF, on a render thread', pdf, 'p50 ≤ 30 ms'),
        timingRow(
          '300 px logo, ESC/POS, decoded and dithered, on a render thread',
          logoFresh,
          'p50 ≤ 5 ms',
        ),
        timingRow('300 px logo, ESC/POS, prepared before, on a render thread', logoKept, ''),
        [
          'HTML → PDF, headless Chromium',
          browser ? fixed(browser.p50, 1) : 'skipped',
          browser ? fixed(browser.p95, 1) : '—',
          '(its own processes)',
          browser ? `ShopDesk ${ratio(browser.p50, pdf.p50)} faster (≥ 20x)` : '',
        ],
      ],
    ),
  );
  console.log(
    '\nESC/POS, CPU ms a render by thread (MainThread: the calling thread, WorkerThread:',
  );
  console.log("the render threads, V8Worker: V8's garbage collection and compiling helpers)");
  for (const line of escpos.byThread) console.log(`  ${line}`);
}

/** A table row of a timing: its label, p50, p95 and CPU a run in ms, and its target. */
function timingRow(label: string, timing: Timing, target: string): string[] {
  return [label, fixed(timing.p50, 2), fixed(timing.p95, 2), fixed(timing.cpu, 2), target];
}

async function http(): Promise<void> {
  const profile = { language: 'escpos' as const, width_mm: 80 as const };
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-templates-'));
  const dbFile = join(dir, 'shopdesk.sqlite');
  const { token } = await seed(dbFile);
  const server = await startShopDesk(dbFile);
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const rendered = await renderDocument(template, receiptData, profile, 'raw');
    const bytesBody = JSON.stringify({
      route: 'receipts',
      content_type: 'application/vnd.escpos',
      content_base64: rendered.bytes.toString('base64'),
    });
    const templateBody = JSON.stringify({
      route: 'receipts',
      template: 'receipt',
      data: receiptData,
    });
    const path = '/api/v1/printing/jobs';
    const asBytes = await measure(
      server.origin,
      server.child.pid,
      { method: 'POST', path, headers, body: bytesBody },
      settings,
    );
    const loadBytes = load();
    const fromTemplate = await measure(
      server.origin,
      server.child.pid,
      { method: 'POST', path, headers, body: templateBody },
      settings,
    );
    const loadTemplate = load();
    console.log(
      `\nPOST /printing/jobs, ${settings.connections} connections, ${settings.seconds} s after ${settings.warmupSeconds} s of warm-up`,
    );
    console.log(
      formatTable(
        ['job', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'failures', 'load average'],
        [
          [
            'sent as bytes (ESC/POS)',
            fixed(asBytes.requestsPerSecond),
            fixed(asBytes.p50Ms, 1),
            fixed(asBytes.p99Ms, 1),
            asBytes.cpuUsPerRequest === null ? '—' : fixed(asBytes.cpuUsPerRequest),
            String(asBytes.failures),
            loadBytes,
          ],
          [
            'from the template (data)',
            fixed(fromTemplate.requestsPerSecond),
            fixed(fromTemplate.p50Ms, 1),
            fixed(fromTemplate.p99Ms, 1),
            fromTemplate.cpuUsPerRequest === null ? '—' : fixed(fromTemplate.cpuUsPerRequest),
            String(fromTemplate.failures),
            loadTemplate,
          ],
        ],
      ),
    );
    console.log(
      `template / bytes: ${ratio(fromTemplate.requestsPerSecond, asBytes.requestsPerSecond)} the req/s (target ≥ 0.5x)`,
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Only when run, not when a script imports the receipt from here.
if (process.argv[1]?.endsWith('templates.ts')) {
  const only = process.env.BENCH_ONLY;
  await (only === 'http'
    ? http()
    : only === 'render'
      ? render()
      : only === 'scripts'
        ? scripts()
        : main());
}
