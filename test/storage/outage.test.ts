import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementNameOf } from '../../server/storage/pg-named-statements.ts';
import { type Instances, startInstances } from '../helpers/instances.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { type Answer, startTestServer, type TestServer } from '../helpers/server.ts';
import { startTcpLink, type TcpLink } from '../helpers/tcp-link.ts';
import { registerAgent, sampleText, type TestAgent } from '../printing/helpers.ts';
import { notifierOf, through, until, untilWaiting } from '../printing/two-instances.ts';

/**
 * PostgreSQL going away and coming back (docs/scale-out.md, readiness). The cluster is shared with
 * other processes, so it is never stopped: the database "goes away" either for one server
 * alone (a TCP relay the test cuts: every connection reset, new ones refused) or by
 * `pg_terminate_backend` on every backend of the test's own fresh database, over and over,
 * while agents claim and confirm and an integrator creates jobs through two instances.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Until no backend of the database runs a statement or holds a transaction open (the LISTEN
 * session sits idle): a long-poll that subscribed has finished its second claim attempt and
 * sleeps, so a cut now meets it asleep, not mid-query.
 */
async function untilQuiet(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    const busy = async () =>
      (
        await client.query(
          "select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and state <> 'idle'",
          [name],
        )
      ).rows[0].n as number;
    for (let tries = 0; (await busy()) > 0; tries++) {
      if (tries > 500) throw new Error('the database never became quiet');
      await sleep(5);
    }
  } finally {
    await client.end();
  }
}

/** The same server's maintenance database (the one freshDatabase creates from). */
const adminUrlOf = (url: string) => {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
};

const jobBody = (route: string) => ({
  route,
  content_type: 'text/plain',
  content_base64: sampleText,
});

describe('the database cut off from one instance, then back (TCP relay cut)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let link: TcpLink;
  let one: TestServer;
  let two: TestServer;
  let company: number;
  let admin: string;
  let agent: TestAgent;

  beforeAll(async () => {
    database = await freshDatabase();
    link = await startTcpLink(database.url);
    // `one` reaches PostgreSQL through the relay; `two` directly.
    one = await startTestServer({ database: { kind: 'postgres', url: link.url } });
    two = await startTestServer({ database: { kind: 'postgres', url: database.url } });
    company = await one.createCompany();
    admin = await one.token(company, '*');
    agent = await registerAgent(
      one,
      company,
      ['cut'],
      await one.token(company, ['printing.agent']),
    );
  });

  afterAll(async () => {
    link?.restore();
    await one?.close();
    await two?.close();
    await link?.close();
    await database?.drop();
  });

  it('answers 503 unavailable with Retry-After while cut, recovers by itself, and the waiting long-poll gets the job queued meanwhile', async () => {
    const notifier = notifierOf(one);
    await until('listening', () => notifier.isListening);
    const sessions = notifier.sessions;
    // A long-poll asleep on `one` when the database goes away.
    const waiting = agent.next(20);
    await untilWaiting(one);
    await untilQuiet(database.url);

    link.cut();
    await until('LISTEN lost', () => !notifier.isListening);
    const key = randomUUID();
    const during: Answer[] = [
      await one.request('GET', '/customers', { token: admin }),
      await one.request('POST', '/printing/jobs', {
        token: admin,
        body: jobBody('cut'),
        headers: { 'idempotency-key': key },
      }),
      await through(one, agent).next(0),
    ];
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('2');
      expect(answer.body).toEqual({
        success: false,
        code: 'unavailable',
        message: 'The service is unavailable; try again shortly.',
      });
    }
    // Queued through the other instance while `one` hears nothing: its NOTIFY is lost there.
    const queued = await two.request('POST', '/printing/jobs', {
      token: admin,
      body: jobBody('cut'),
    });
    expect(queued.status).toBe(201);

    link.restore();
    // The LISTEN connection comes back by itself and wakes the waiter once: it claims the
    // job queued during the gap, well before its 20 s wait ends.
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(woken.body.data.id).toBe(queued.body.data.id);
    expect(notifier.isListening).toBe(true);
    expect(notifier.sessions).toBeGreaterThan(sessions);
    // The pool opens new connections on the next query: the first request succeeds.
    expect((await one.request('GET', '/customers', { token: admin })).status).toBe(200);
    // The write refused during the cut, sent again with its key, is made once.
    const again = await one.request('POST', '/printing/jobs', {
      token: admin,
      body: jobBody('cut'),
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    const jobs = await two.request('GET', '/printing/history?per_page=50', { token: admin });
    expect(jobs.status).toBe(200);
    expect(jobs.body.data).toHaveLength(2);
  });

  it('a claim that committed but whose answer was lost is given back: queued again, not left claimed', async () => {
    const lost = await registerAgent(
      one,
      company,
      ['lost'],
      await one.token(company, ['printing.agent']),
    );
    const queued = await two.request('POST', '/printing/jobs', {
      token: admin,
      body: jobBody('lost'),
    });
    expect(queued.status).toBe(201);
    // With no webhook endpoint taking print_job.claimed, the claim is one statement that
    // commits by itself (docs/printing.md, claiming).
    // The statement's text the first time a connection runs it, its name after that.
    const claim = 'with "claimed" as (update "print_jobs" set "status"';
    const name = statementNameOf(claim);
    const fired = link.loseAnswer(claim, ...(name ? [`${name}\0`] : []));
    const answer = await through(one, lost).next(0);
    await fired;
    expect(answer.status).toBe(503);
    const db = two.app.services.storage.db;
    const row = await db
      .selectFrom('print_jobs')
      .select(['status', 'agent_id', 'attempts'])
      .where('id', '=', queued.body.data.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'queued', agent_id: null, attempts: 0 });
    const claims = await db
      .selectFrom('print_job_events')
      .select('id')
      .where('job_id', '=', queued.body.data.id)
      .where('to_status', '=', 'claimed')
      .execute();
    expect(claims).toEqual([]);
    // And the agent's next call (the 503 said: try again) gets it.
    const again = await through(one, lost).next(0);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(queued.body.data.id);
  });
});

describe('every backend of the database terminated again and again under load (two instances)', () => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;
  let databaseUrl: string;

  beforeAll(async () => {
    instances = await startInstances('postgres');
    ({ one, two } = instances);
    databaseUrl = instances.databaseUrl!;
  });

  afterAll(async () => {
    await instances?.close();
  });

  it('never answers 500; every job is created once and confirmed once, none left claimed; LISTEN wakes across instances afterwards', async () => {
    const company = await one.createCompany();
    const admin = await one.token(company, '*');
    const agentToken = await one.token(company, ['printing.agent']);
    const agents = await Promise.all(
      [0, 1, 2, 3].map(() => registerAgent(one, company, ['load'], agentToken)),
    );
    const instances = [one, two];
    const statuses = new Map<number, number>();
    const seen = (answer: Answer) => {
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      return answer;
    };
    /** Sends until the answer is not a 503, as a client honouring Retry-After would. */
    const untilServed = async (call: () => Promise<Answer>): Promise<Answer> => {
      for (;;) {
        if (performance.now() > deadline) throw new Error('still 503 after 90 s');
        const answer = seen(await call().catch(() => ({ status: 0 }) as Answer));
        if (answer.status !== 503 && answer.status !== 0) return answer;
        await sleep(20);
      }
    };

    const total = 60;
    let creating = true;
    let kills = 0;
    let rounds = 0;
    const created: number[] = [];
    const printed: number[] = [];
    const name = new URL(databaseUrl).pathname.slice(1);
    const killing = (async () => {
      while (creating) {
        // On the admin database: the killer is not one of the backends it terminates.
        const killer = new pg.Client({ connectionString: adminUrlOf(databaseUrl) });
        killer.on('error', () => undefined);
        try {
          await killer.connect();
          while (creating) {
            // Paced by progress, not by the clock: a cut after every few answers served,
            // however slow the machine (each cut costs every pool a reconnect).
            const mark = created.length + printed.length + 6;
            while (creating && created.length + printed.length < mark) await sleep(5);
            const result = await killer.query(
              'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
              [name],
            );
            kills += result.rowCount ?? 0;
            rounds += 1;
          }
        } catch {
          // Cut by someone else: open another.
        } finally {
          await killer.end().catch(() => undefined);
        }
      }
    })();
    /** The work loops give up here, so that a stuck job fails the checks below, not the run. */
    const deadline = performance.now() + 90_000;

    const creators = [0, 1, 2, 3].map(async (lane) => {
      for (let n = lane; n < total; n += 4) {
        const key = randomUUID();
        const answer = await untilServed(() =>
          instances[n % 2]!.request('POST', '/printing/jobs', {
            token: admin,
            body: jobBody('load'),
            headers: { 'idempotency-key': key },
          }),
        );
        expect(answer.status).toBe(201);
        created.push(answer.body.data.id);
      }
    });

    const workers = agents.map(async (agent, index) => {
      const via = through(instances[index % 2]!, agent);
      while ((creating || printed.length < total) && performance.now() < deadline) {
        const answer = seen(await via.next(1).catch(() => ({ status: 0 }) as Answer));
        if (answer.status !== 200) {
          expect([204, 503, 0]).toContain(answer.status);
          if (answer.status !== 204) await sleep(20);
          continue;
        }
        const id: number = answer.body.data.id;
        const confirmed = await untilServed(() =>
          via.call('POST', `/printing/jobs/${id}/confirm`, {}),
        );
        expect(confirmed.status).toBe(200);
        printed.push(id);
      }
    });

    await Promise.all(creators);
    creating = false;
    await killing;
    await Promise.all(workers);

    console.log(
      `${rounds} cuts, ${kills} backends terminated; answers by status ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(rounds).toBeGreaterThan(3);
    expect(kills).toBeGreaterThan(rounds);
    expect(statuses.has(500)).toBe(false);
    expect(new Set(created).size).toBe(total);

    const db = one.app.services.storage.db;
    const jobs = await db.selectFrom('print_jobs').select(['id', 'status']).execute();
    expect(jobs).toHaveLength(total);
    expect(jobs.filter((job) => job.status !== 'printed')).toEqual([]);
    expect(printed).toHaveLength(total);
    expect(new Set(printed)).toEqual(new Set(created));
    const confirms = await db
      .selectFrom('print_job_events')
      .select(['job_id'])
      .where('to_status', '=', 'printed')
      .execute();
    expect(confirms).toHaveLength(total);
    expect(new Set(confirms.map((row) => row.job_id)).size).toBe(total);

    // LISTEN came back on both: a long-poll on `two` wakes on a job created on `one`.
    await until('listening', () => notifierOf(one).isListening && notifierOf(two).isListening);
    const waiting = through(two, agents[0]!).next(20);
    await untilWaiting(two);
    const job = await untilServed(() =>
      one.request('POST', '/printing/jobs', { token: admin, body: jobBody('load') }),
    );
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(woken.body.data.id).toBe(job.body.data.id);
  }, 150_000);
});
