/**
 * The web console's figures: `npx tsx bench/console.ts [--jobs N] [--samples N]
 * [--streams N] [--postgres ADMIN_URL]` (also run by `npm run bench`; BENCH_CONSOLE=0 skips it).
 *
 * Starts the real server (startApp on a temporary SQLite file, or a fresh PostgreSQL
 * database with --postgres) in a child process, seeds one company with N jobs (default
 * 100,000) and a console user, then measures:
 *  1. the bundle a browser loads (app.js, app.css, index.html), raw and gzipped;
 *  2. the jobs page's query (`GET /console/jobs`'s operation: page 1 of 25, no total
 *     counted), all, by state, and searched (a title one job has, and a word none has: the
 *     worst case, every title of the company read), timed in the server process: p50, p99;
 *  3. the jobs page in Chromium, signed in: from navigation start to the first row of the
 *     table painted (the first useful paint), a fresh page load each sample: p50, p99;
 *  4. a search typed on the page: from the form's submit to the answer on screen: p50, p99;
 *  5. live latency: a job created by the API, from its commit (noted by the server on the
 *     clock both processes share) to the browser's EventSource event: p50, p99;
 *  6. live update on screen with 20 jobs pages open, half on a second instance of the same
 *     database (PostgreSQL; on SQLite the one instance): from the commit to the new row in
 *     each tab's table: p50, p95;
 *  7. N open event streams (default 500): the server's memory (RSS and heap) before and
 *     after, and the cost per stream.
 * The machine is shared: the load average is printed with the figures.
 */
import { fork } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type Insertable, sql } from 'kysely';
import { buildConsole } from '../console/build.ts';
import type { Database } from '../server/storage/schema.ts';
import { launchChromium } from '../test/helpers/chromium.ts';
import { startBenchApp } from './lib/bench-app.ts';

interface Ready {
  url: string;
  /** The second instance (the same as `url` on SQLite). */
  url2: string;
  email: string;
  password: string;
  token: string;
  query: Record<'all' | 'failed' | 'hit' | 'miss', { p50: number; p99: number }>;
}

type Ask = { ask: 'commits' } | { ask: 'memory' };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The child: the real server with the seeded jobs, until the parent disconnects. */
async function serve(jobs: number): Promise<void> {
  const { createCompany } = await import('../server/companies/create-company.ts');
  const { createToken } = await import('../server/tokens/create-token.ts');
  const { createUser } = await import('../server/console/create-user.ts');
  const { setPassword } = await import('../server/console/set-password.ts');
  const { listConsoleJobs } = await import('../server/printing/jobs/read-console-jobs.ts');
  const { app, close, secondInstance } = await startBenchApp();
  const storage = app.services.storage;
  const commits: number[] = [];
  app.services.printing.onJobChange(() => commits.push(performance.timeOrigin + performance.now()));
  const company = await createCompany(storage.db, 'Bench shop');
  const token = await createToken(storage.db, {
    companyId: company,
    permissions: ['printing.jobs.create', 'printing.jobs.read'],
    name: 'bench',
  });
  const { user } = await createUser(storage.db, {
    companyId: company,
    email: 'bench@shop.example',
    role: 'owner',
  });
  await setPassword(storage, storage.db, user.id, 'bench password');
  const document = await storage.db
    .insertInto('print_documents')
    .values({
      company_id: company,
      sha256: 'a'.repeat(64),
      size: 15,
      content: Buffer.from('Hello, printer\n'),
      created_at: '2026-01-01T00:00:00Z',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const statuses = [
    'printed',
    'printed',
    'printed',
    'printed',
    'failed',
    'cancelled',
    'expired',
  ] as const;
  const start = Date.now() - jobs * 10_000;
  for (let from = 0; from < jobs; from += 1000) {
    const rows: Insertable<Database['print_jobs']>[] = [];
    for (let i = from; i < Math.min(jobs, from + 1000); i++) {
      const at = new Date(start + i * 10_000).toISOString().slice(0, 19) + 'Z';
      rows.push({
        company_id: company,
        document_id: document.id,
        route: i % 3 === 0 ? 'labels' : 'receipts',
        title: `Receipt ${i}`,
        status: statuses[i % statuses.length]!,
        content_type: 'text/plain' as const,
        size: 15,
        sha256: 'a'.repeat(64),
        copies: 1,
        priority: 5,
        options: '{}',
        attempts: 1,
        created_at: at,
        updated_at: at,
      });
    }
    await storage.transaction(storage.db, (trx) =>
      trx.insertInto('print_jobs').values(rows).execute(),
    );
  }
  // As autovacuum would have by now: PostgreSQL counts from the index alone only once the
  // visibility map knows the pages (a count right after a bulk insert reads every row).
  if (process.env.BENCH_POSTGRES) await sql`vacuum analyze print_jobs`.execute(storage.db);
  const time = async (query: Partial<Parameters<typeof listConsoleJobs>[2]>) => {
    const samples: number[] = [];
    for (let i = 0; i < 120; i++) {
      const began = performance.now();
      await listConsoleJobs(storage.db, company, { page: 1, per_page: 25, ...query });
      samples.push(performance.now() - began);
    }
    const kept = samples.slice(20);
    return { p50: percentile(kept, 50), p99: percentile(kept, 99) };
  };
  const query = {
    all: await time({}),
    failed: await time({ status: 'failed' }),
    hit: await time({ search: `Receipt ${jobs - 10}` }),
    miss: await time({ search: 'A-1043' }),
  };
  const second = await secondInstance();
  process.on('message', (message: Ask) => {
    if (message.ask === 'commits') process.send!({ commits: commits.splice(0) });
    else {
      globalThis.gc?.();
      const memory = process.memoryUsage();
      process.send!({ rss: memory.rss, heap: memory.heapUsed });
    }
  });
  process.on('disconnect', () => void close().then(() => process.exit(0)));
  const ready: Ready = {
    url: app.url,
    url2: second.url,
    email: 'bench@shop.example',
    password: 'bench password',
    token: token.secret,
    query,
  };
  process.send!(ready);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      jobs: { type: 'string', default: '100000' },
      samples: { type: 'string', default: '30' },
      streams: { type: 'string', default: '500' },
      postgres: { type: 'string' },
    },
  });
  const built = await buildConsole();
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `bundle: ${(built.bytes / 1024).toFixed(1)} KB, ${(built.gzipped / 1024).toFixed(1)} KB gzipped (target ≤ 150 KB)`,
  );
  const child = fork(new URL(import.meta.url).pathname, ['--serve', values.jobs], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, ...(values.postgres && { BENCH_POSTGRES: values.postgres }) },
  });
  const ready = await new Promise<Ready>((resolve) =>
    child.once('message', (m) => resolve(m as Ready)),
  );
  const ask = <T>(message: Ask) =>
    new Promise<T>((resolve) => {
      child.once('message', (answer) => resolve(answer as T));
      child.send(message);
    });
  console.log(
    `${Number(values.jobs).toLocaleString('en')} jobs, ${values.postgres ? 'PostgreSQL' : 'SQLite'}`,
  );
  const { all, failed, hit, miss } = ready.query;
  console.log(
    `jobs page query (server, no total): p50 ${ms(all.p50)}, p99 ${ms(all.p99)}; by state: p50 ${ms(failed.p50)}, p99 ${ms(failed.p99)} (target p99 ≤ 20 ms)`,
  );
  console.log(
    `search (server): a title one job has: p50 ${ms(hit.p50)}, p99 ${ms(hit.p99)}; a word no job has: p50 ${ms(miss.p50)}, p99 ${ms(miss.p99)}`,
  );

  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${ready.url}/console/`);
    await page.getByLabel('E-mail').fill(ready.email);
    await page.getByLabel('Password').fill(ready.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const paints: number[] = [];
    for (let i = 0; i < Number(values.samples) + 3; i++) {
      await page.goto(`${ready.url}/console/jobs`);
      await page.locator('tr[data-job]').first().waitFor();
      const at = await page.evaluate(() => performance.now());
      if (i >= 3) paints.push(at);
    }
    console.log(
      `jobs page, navigation to first row painted: p50 ${ms(percentile(paints, 50))}, p99 ${ms(percentile(paints, 99))} (target ≤ 300 ms)`,
    );
    const searches: number[] = [];
    for (let i = 0; i < Number(values.samples); i++) {
      await page.goto(`${ready.url}/console/jobs`);
      await page.locator('tr[data-job]').first().waitFor();
      const word = i % 2 === 0 ? `Receipt ${Number(values.jobs) - 10 - i}` : 'A-1043';
      searches.push(await page.evaluate<number>(searchOnPage(word)));
    }
    console.log(
      `search on the page, submit to answer on screen (half found, half not): p50 ${ms(percentile(searches, 50))}, p99 ${ms(percentile(searches, 99))} (target ≤ 200 ms)`,
    );

    // Live: the page listens; each job's commit to the browser's event.
    await page.evaluate(() => {
      const seen: number[] = [];
      (globalThis as unknown as { seen: number[] }).seen = seen;
      const source = new EventSource('/api/v1/events/stream');
      source.addEventListener('change', () =>
        seen.push(performance.timeOrigin + performance.now()),
      );
    });
    await page.waitForFunction(() => (globalThis as unknown as { seen: number[] }).seen.length > 0);
    const latencies: number[] = [];
    for (let i = 0; i < Number(values.samples); i++) {
      const before = await page.evaluate(
        () => (globalThis as unknown as { seen: number[] }).seen.length,
      );
      await ask<{ commits: number[] }>({ ask: 'commits' });
      const created = await fetch(`${ready.url}/api/v1/printing/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          route: 'nobody',
          content_type: 'text/plain',
          content_base64: 'SGk=',
        }),
      });
      if (created.status !== 201) throw new Error(`create: ${created.status}`);
      await page.waitForFunction(
        (n) => (globalThis as unknown as { seen: number[] }).seen.length > n,
        before,
      );
      const received = await page.evaluate(
        (n) => (globalThis as unknown as { seen: number[] }).seen[n]!,
        before,
      );
      const { commits } = await ask<{ commits: number[] }>({ ask: 'commits' });
      latencies.push(received - commits[0]!);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(
      `live update, commit to browser event: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))} (target p99 ≤ 100 ms)`,
    );

    const tabs = await liveOnScreen(context, browser, ready, Number(values.samples), ask);
    console.log(
      `live update on screen, 20 tabs (10 on each instance): p50 ${ms(percentile(tabs, 50))}, p95 ${ms(percentile(tabs, 95))}, p99 ${ms(percentile(tabs, 99))} (target p95 ≤ 500 ms)`,
    );

    // Memory of N open streams.
    const cookie = (await context.cookies()).find((c) => c.name === 'shopdesk_session')!;
    const before = await ask<{ rss: number; heap: number }>({ ask: 'memory' });
    const streams = Number(values.streams);
    const open: { destroy(): void }[] = [];
    await Promise.all(
      Array.from(
        { length: streams },
        () =>
          new Promise<void>((resolve, reject) => {
            const req = httpRequest(`${ready.url}/api/v1/events/stream`, {
              headers: { cookie: `${cookie.name}=${cookie.value}`, accept: 'text/event-stream' },
              agent: false,
            });
            req.on('response', (response) => {
              open.push(response);
              response.once('data', () => resolve());
            });
            req.on('error', reject);
            req.end();
          }),
      ),
    );
    const after = await ask<{ rss: number; heap: number }>({ ask: 'memory' });
    const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
    console.log(
      `${streams} open streams: server RSS +${mib(after.rss - before.rss)} (${mib(before.rss)} → ${mib(after.rss)}), heap +${mib(after.heap - before.heap)}; ${((after.rss - before.rss) / streams / 1024).toFixed(1)} KiB a stream (target < 50 MiB)`,
    );
    for (const stream of open) stream.destroy();
  } finally {
    await browser.close();
    child.disconnect();
  }
  console.log(
    `load average at end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
}

/**
 * In the page: types the word into the search, submits, and resolves with the time until
 * the answer is on screen (the one row it names, or the page's empty state). A string, not a
 * function: tsx names the functions it compiles with a helper the page does not have.
 */
const searchOnPage = (word: string) => `new Promise((resolve) => {
  const word = ${JSON.stringify(word)};
  const input = document.querySelector('input[name="search"]');
  input.value = word;
  const began = performance.now();
  const answered = () =>
    document.querySelector('[data-testid="empty-state"]') !== null ||
    (document.querySelectorAll('tr[data-job]').length === 1 &&
      document.querySelector('tr[data-job]').textContent.includes(word));
  const observer = new MutationObserver(() => {
    if (!answered()) return;
    observer.disconnect();
    resolve(performance.now() - began);
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  input.form.requestSubmit();
})`;

/** In a tab: resolves with the clock time a row newer than job `after` is in the table. */
const newRowSeen = (after: number) => `new Promise((resolve) => {
  const look = () => {
    const row = document.querySelector('tr[data-job]');
    if (!row || Number(row.getAttribute('data-job')) <= ${after}) return false;
    resolve(performance.timeOrigin + performance.now());
    return true;
  };
  if (look()) return;
  const observer = new MutationObserver(() => look() && observer.disconnect());
  observer.observe(document.body, { subtree: true, childList: true, attributes: true });
})`;

/**
 * 20 jobs pages, alternately on each instance; per sample, a job created on the first
 * instance, and in every tab the time from its commit to the new row in the table.
 */
async function liveOnScreen(
  context: import('playwright-core').BrowserContext,
  browser: import('playwright-core').Browser,
  ready: Ready,
  samples: number,
  ask: <T>(message: Ask) => Promise<T>,
): Promise<number[]> {
  // A browser opens at most 6 connections to one server, and each tab holds one for its
  // event stream: 20 tabs of one profile would wait for each other. Each tab here has its own
  // context (its own connections), signed in with the same session, as 20 people's would be.
  const storageState = await context.storageState();
  const contexts = await Promise.all(
    Array.from({ length: 20 }, () => browser.newContext({ storageState })),
  );
  const tabs = [];
  for (let i = 0; i < 20; i++) {
    const tab = await contexts[i]!.newPage();
    await tab.goto(`${i % 2 === 0 ? ready.url : ready.url2}/console/jobs`);
    await tab.locator('tr[data-job]').first().waitFor();
    tabs.push(tab);
  }
  const latencies: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const newest = Number(await tabs[0]!.locator('tr[data-job]').first().getAttribute('data-job'));
    const seen = tabs.map((tab) => tab.evaluate<number>(newRowSeen(newest)));
    await ask<{ commits: number[] }>({ ask: 'commits' });
    const created = await fetch(`${ready.url}/api/v1/printing/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ route: 'nobody', content_type: 'text/plain', content_base64: 'SGk=' }),
    });
    if (created.status !== 201) throw new Error(`create: ${created.status}`);
    const at = await Promise.all(seen);
    const { commits } = await ask<{ commits: number[] }>({ ask: 'commits' });
    for (const time of at) latencies.push(time - commits[0]!);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  for (const tabContext of contexts) await tabContext.close();
  return latencies;
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]));
else await main();
