import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleJobsPage } from '../../server/printing/jobs/read-console-jobs.ts';
import { consoleRequest, consoleUser, signIn } from '../helpers/console.ts';
import { databaseKinds, queryPlanOf, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from '../printing/helpers.ts';

/**
 * The jobs page's own routes (`/console/jobs…`, server/console/job-routes.ts): search over
 * title and number without a total, where a job went in names, the filters' choices, and
 * "Retry all failed" with what it leaves.
 */
describe.each(databaseKinds)("the console's jobs routes on %s", (kind) => {
  let server: TestServer;
  let company: number;
  let integrator: string;
  let agent: TestAgent;
  let staff: string;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    company = await server.createCompany('Jobs Co');
    integrator = await integratorToken(server, company);
    agent = await registerAgent(server, company, ['receipts', 'kitchen']);
    staff = await signIn(server, await consoleUser(server, company, 'staff'));
  });
  afterAll(() => server?.close());

  const get = (path: string) => consoleRequest(server, 'GET', path, { cookie: staff });
  /** A job on `route` that the agent claims and fails with `code`. */
  const failedJob = async (route: string, code: string, title = 'Failing') => {
    const job = await createJob(server, integrator, { route, title });
    const claimed = await agent.next();
    expect(claimed.body.data.id).toBe(job.id);
    const failed = await agent.call('POST', `/printing/jobs/${job.id}/error`, {
      message: 'it went wrong',
      code,
    });
    expect(failed.status).toBe(200);
    return job;
  };

  it('finds a job by words of its title in any case, or by its number, and counts nothing', async () => {
    const order = await createJob(server, integrator, { title: 'Order A-1043', route: 'counter' });
    await createJob(server, integrator, { title: 'Order A-1044', route: 'counter' });
    const byWords = await get('/console/jobs?search=a-1043');
    expect(byWords.status).toBe(200);
    expect(byWords.body.data.map((job: { id: number }) => job.id)).toEqual([order.id]);
    expect(byWords.body.meta).toEqual({ current_page: 1, per_page: 15, has_more: false });
    const byNumber = await get(`/console/jobs?search=%23${order.id}`);
    expect(byNumber.body.data.map((job: { id: number }) => job.id)).toContain(order.id);
    // A number past any id is searched as words only (PostgreSQL would refuse to compare it).
    const huge = await get('/console/jobs?search=99999999999');
    expect(huge.status).toBe(200);
    expect(huge.body.data).toEqual([]);
    // `%` and `_` are themselves, not wildcards: "Order_A" is in no title.
    expect((await get('/console/jobs?search=Order_A')).body.data).toEqual([]);
    const page = await get('/console/jobs?search=order&per_page=1');
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.has_more).toBe(true);
  });

  it('names the agent and the printer a failed job went to, and filters by that printer', async () => {
    const job = await failedJob('receipts', 'printer_not_ready', 'Receipt 7');
    const read = await get(`/console/jobs/${job.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      id: job.id,
      status: 'failed',
      printer: null,
      printer_name: 'EPSON',
      agent_name: expect.stringMatching(/^Till /),
      error: { code: 'printer_not_ready', message: 'it went wrong' },
    });
    expect(read.body.data.events.length).toBeGreaterThan(1);
    const byPrinter = await get('/console/jobs?printer=EPSON&status=failed');
    expect(byPrinter.body.data.map((row: { id: number }) => row.id)).toContain(job.id);
    const otherPrinter = await get('/console/jobs?printer=Zebra');
    expect(otherPrinter.body.data).toEqual([]);
  });

  it("offers the company's routes and printers, backups too, as the filters' choices", async () => {
    await createJob(server, integrator, { route: 'nobody-serves-this' });
    const routes = await agent.call('PUT', '/printing/routes', {
      routes: [
        { name: 'receipts', printer: 'EPSON', backup_printers: ['Front-2'] },
        { name: 'kitchen', printer: 'EPSON' },
      ],
    });
    expect(routes.status).toBe(200);
    const choices = await get('/console/jobs/choices');
    expect(choices.body.data).toEqual({
      routes: ['counter', 'kitchen', 'nobody-serves-this', 'receipts'],
      printers: ['EPSON', 'Front-2'],
    });
  });

  it('retries the failed jobs of a route, leaving those a retry cannot help', async () => {
    // Failed on receipts: "Receipt 7" above, and these two.
    const fixable = await failedJob('receipts', 'printer_unreachable');
    const unfixable = await failedJob('receipts', 'template_render_failed');
    const elsewhere = await failedJob('kitchen', 'printer_unreachable');
    const answer = await consoleRequest(server, 'POST', '/console/jobs/retry-failed', {
      cookie: staff,
      body: { route: 'receipts' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ retried: 2, left: 1, more: false });
    expect((await get('/console/jobs?route=receipts&status=failed')).body.data).toHaveLength(1);
    const status = async (id: number) => (await get(`/console/jobs/${id}`)).body.data.status;
    expect(await status(fixable.id)).toBe('queued');
    expect(await status(unfixable.id)).toBe('failed');
    expect(await status(elsewhere.id)).toBe('failed');
  });

  it('refuses "retry all" without a route or printer, to a bearer token, and without a session', async () => {
    const none = await consoleRequest(server, 'POST', '/console/jobs/retry-failed', {
      cookie: staff,
      body: {},
    });
    expect(none.status).toBe(422);
    const bearer = await server.request('POST', '/console/jobs/retry-failed', {
      token: integrator,
      body: { route: 'receipts' },
    });
    expect(bearer.status).toBe(403);
    const anonymous = await consoleRequest(server, 'POST', '/console/jobs/retry-failed', {
      body: { route: 'receipts' },
    });
    expect(anonymous.status).toBe(401);
  });

  it('searches titles through a trigram index on PostgreSQL (SQLite reads the titles)', async () => {
    const { db } = server.app.services.storage;
    if (kind === 'sqlite') {
      // No index of titles: the search reads the company's titles, newest first.
      const indexes = await sql<{ name: string }>`
        select name from sqlite_master where type = 'index' and sql like '%title%'`.execute(db);
      expect(indexes.rows).toEqual([]);
      return;
    }
    const index = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where indexname = 'print_jobs_title_search'`.execute(db);
    expect(index.rows[0]?.indexdef).toContain('gin_trgm_ops');
    // It serves the search's own expression (the planner may still prefer another index
    // for a company with few jobs; told not to read the table whole, it takes this one).
    const plan = await db.connection().execute(async (connection) => {
      await sql`set enable_seqscan = off`.execute(connection);
      try {
        return await sql<{ 'QUERY PLAN': string }>`explain select id from print_jobs
          where lower(title) like '%a-1043%'`.execute(connection);
      } finally {
        await sql`set enable_seqscan = on`.execute(connection);
      }
    });
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain(
      'print_jobs_title_search',
    );
  });

  // Without the status (migration 040): a claim or a confirm would move the job's entry.
  it("reads the Overview's jobs of a day from an index of creation times", async () => {
    const { db } = server.app.services.storage;
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    if (kind === 'sqlite') {
      const plan = await sql<{ detail: string }>`explain query plan
        select status, count(*) from print_jobs where company_id = ${company}
        and created_at >= ${dayAgo} group by status`.execute(db);
      expect(plan.rows.map((row) => row.detail).join('\n')).toContain(
        'USING INDEX print_jobs_company_created (company_id=? AND created_at>?)',
      );
    } else {
      const index = await sql<{ indexdef: string }>`
        select indexdef from pg_indexes where indexname = 'print_jobs_company_created'`.execute(db);
      expect(index.rows[0]?.indexdef).toContain('(company_id, created_at)');
    }
  });

  // Migration 041 first dropped this index as covered by the others: the page then sorted
  // every job of the company (29 ms for 100,000, bench/console.ts).
  it('reads a page of the newest jobs in id order from the index by company, unsorted', async () => {
    const { db } = server.app.services.storage;
    const page = consoleJobsPage(db, company, { page: 1, per_page: 25 }).compile();
    if (kind === 'sqlite') {
      const detail = await queryPlanOf(server, page);
      expect(detail).toContain('USING INDEX print_jobs_company (company_id=?)');
      expect(detail).not.toContain('TEMP B-TREE');
    } else {
      const index = await sql<{ indexdef: string }>`
        select indexdef from pg_indexes where indexname = 'print_jobs_company'`.execute(db);
      expect(index.rows[0]?.indexdef).toContain('(company_id)');
    }
  });

  it("answers 404 for another company's job and lists none of its jobs", async () => {
    const other = await server.createCompany('Other Co');
    const theirs = await createJob(server, await integratorToken(server, other), {
      title: 'Order A-1043 elsewhere',
    });
    expect((await get(`/console/jobs/${theirs.id}`)).status).toBe(404);
    const search = await get('/console/jobs?search=elsewhere');
    expect(search.body.data).toEqual([]);
  });
});
