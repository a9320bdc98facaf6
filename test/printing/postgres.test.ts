import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresJobNotifier } from '../../server/printing/store/postgres/postgres-job-notifier.ts';
import { listenApplicationName } from '../../server/storage/database.ts';
import type { JobRecord } from '../../shared/printing.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, registerAgent } from './helpers.ts';
import {
  companyOnInstances,
  notifierOf,
  through,
  until,
  untilWaiting,
  wait,
  wellUnderTheWait,
} from './two-instances.ts';

/**
 * The print queue on a real PostgreSQL, with two server instances on one fresh database:
 * claims across instances (FOR UPDATE SKIP LOCKED), LISTEN/NOTIFY wake-ups from one
 * instance (or the CLI) to a long-poll on the other, and the LISTEN connection's recovery.
 */

const run = promisify(execFile);
const cli = join(import.meta.dirname, '../../bin/shopdesk.js');

const shop = companyOnInstances('postgres');
/** One `printing.agent` token shared by every agent, as a shop would deploy it. */
let agentToken: string;

beforeAll(async () => {
  agentToken = await shop.one.token(shop.company, ['printing.agent']);
});

describe('print queue on PostgreSQL, two instances', () => {
  it('uses the LISTEN/NOTIFY notifier on both instances', () => {
    for (const server of [shop.one, shop.two]) {
      expect(server.app.services.storage.dialect).toBe('postgres');
      const notifier = notifierOf(server);
      expect(notifier).toBeInstanceOf(PostgresJobNotifier);
      expect(notifier.isListening).toBe(true);
    }
  });

  it('each instance holds one LISTEN connection of its own, closed with the app', async () => {
    // Every channel of an instance (jobs, webhooks, tokens) is on that one connection.
    const listeners = async () =>
      (
        await sql<{ pid: number }>`select pid from pg_stat_activity
          where datname = current_database() and application_name = ${listenApplicationName}`.execute(
          shop.one.app.services.storage.db,
        )
      ).rows.map((row) => row.pid);
    const before = await listeners();
    expect(before).toEqual(
      expect.arrayContaining([notifierOf(shop.one).backendPid, notifierOf(shop.two).backendPid]),
    );
    const third = await startTestServer({
      database: { kind: 'postgres', url: shop.instances.databaseUrl! },
    });
    const pid = notifierOf(third).backendPid;
    expect(await listeners()).toContain(pid);
    await third.close();
    expect(notifierOf(third).isListening).toBe(false);
    const deadline = performance.now() + 2000;
    while ((await listeners()).includes(pid!) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await listeners()).not.toContain(pid);
  });

  it('200 jobs queued through both, 20 agents on both claiming at once: each job claimed exactly once', async () => {
    const agents = await Promise.all(
      Array.from({ length: 20 }, (_, n) => {
        const server = n % 2 ? shop.two : shop.one;
        return registerAgent(server, shop.company, ['bulk'], agentToken).then((agent) => ({
          agent,
          server,
          via: through(server, agent),
        }));
      }),
    );
    const created: JobRecord[] = [];
    const claims: { jobId: number; agent: string; server: TestServer }[] = [];
    let creating = true;
    // The agents long-poll while the jobs are being queued, so both the claim race and the
    // cross-instance wake-ups are exercised; every claimed job is confirmed.
    const claiming = Promise.all(
      agents.map(async ({ agent, server, via }) => {
        const deadline = performance.now() + 30_000;
        while ((creating || claims.length < created.length) && performance.now() < deadline) {
          const answer = await via.next(1);
          if (answer.status === 204) continue;
          expect(answer.status).toBe(200);
          const job = answer.body.data;
          expect(job.agent_id).toBe(agent.uuid);
          claims.push({ jobId: job.id, agent: agent.uuid, server });
          const confirmed = await via.call('POST', `/printing/jobs/${job.id}/confirm`, {
            printer: 'EPSON',
          });
          expect(confirmed.status).toBe(200);
        }
      }),
    );
    for (let batch = 0; batch < 10; batch++) {
      const jobs = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          createJob(n % 2 ? shop.one : shop.two, shop.integrator, {
            route: 'bulk',
            title: `bulk ${batch}.${n}`,
          }),
        ),
      );
      created.push(...jobs);
    }
    creating = false;
    await claiming;

    const claimedIds = claims.map((claim) => claim.jobId).sort((a, b) => a - b);
    expect(new Set(claimedIds).size).toBe(claimedIds.length);
    expect(claimedIds).toEqual(created.map((job) => job.id).sort((a, b) => a - b));
    // Both instances handed out jobs, and the agents of both took part.
    expect(claims.some((claim) => claim.server === shop.one)).toBe(true);
    expect(claims.some((claim) => claim.server === shop.two)).toBe(true);
    const rows = await shop.one.app.services.storage.db
      .selectFrom('print_jobs')
      .select(['id', 'status', 'attempts', 'agent_id'])
      .where('route', '=', 'bulk')
      .execute();
    expect(rows).toHaveLength(200);
    const holder = new Map(claims.map((claim) => [claim.jobId, claim.agent]));
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'printed', attempts: 1, agent_id: holder.get(row.id) });
    }
    const claimEvents = await shop.one.app.services.storage.db
      .selectFrom('print_job_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('to_status', '=', 'claimed')
      .where(
        'job_id',
        'in',
        rows.map((row) => row.id),
      )
      .executeTakeFirstOrThrow();
    expect(Number(claimEvents.n)).toBe(200);
  }, 60_000);

  it('a claim locks only the job it takes: another agent of its other routes still gets theirs', async () => {
    const both = await registerAgent(shop.one, shop.company, ['lock-a', 'lock-b'], agentToken);
    const onlyB = await registerAgent(shop.two, shop.company, ['lock-b'], agentToken);
    const a = await createJob(shop.one, shop.integrator, { route: 'lock-a', priority: 9 });
    const b = await createJob(shop.one, shop.integrator, { route: 'lock-b', priority: 5 });
    // Hold every claim in the middle of its transaction (after its UPDATE, at its event
    // insert) by locking the events table from outside.
    const blocker = shop.one.app.services.storage.dedicatedClient!();
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table print_job_events in exclusive mode');
      const blockedClaims = async () =>
        Number(
          (
            await blocker.query(
              "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
            )
          ).rows[0].n,
        );
      const first = both.next();
      while ((await blockedClaims()) < 1) await new Promise((r) => setTimeout(r, 5));
      // The first claim holds job a and waits; the second agent serves lock-b only.
      let secondDone = false;
      const second = onlyB.next().finally(() => {
        secondDone = true;
      });
      while (!secondDone && (await blockedClaims()) < 2) {
        await new Promise((r) => setTimeout(r, 5));
      }
      await blocker.query('commit');
      const [took, other] = await Promise.all([first, second]);
      expect(took.status).toBe(200);
      expect(took.body.data.id).toBe(a.id);
      expect(other.status).toBe(200);
      expect(other.body.data.id).toBe(b.id);
    } finally {
      await blocker.end();
    }
  });

  it('an agent whose best route is all held by other claimers gets a job of its other routes', async () => {
    const agent = await registerAgent(shop.one, shop.company, ['held-a', 'held-b'], agentToken);
    const a = await createJob(shop.one, shop.integrator, { route: 'held-a', priority: 9 });
    const b = await createJob(shop.one, shop.integrator, { route: 'held-b', priority: 1 });
    // Another claimer (here: an outside transaction) holds the only job of held-a.
    const holder = shop.one.app.services.storage.dedicatedClient!();
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from print_jobs where id = $1 for update', [a.id]);
      const answer = await agent.next();
      expect(answer.status).toBe(200);
      expect(answer.body.data.id).toBe(b.id);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    expect((await agent.next()).body.data.id).toBe(a.id);
  });

  it('a job queued on one instance reaches an agent long-polling on the other in milliseconds', async () => {
    const agent = await registerAgent(shop.two, shop.company, ['fast'], agentToken);
    const delays: number[] = [];
    for (let round = 0; round < 20; round++) {
      const waiting = agent.next(wait);
      await untilWaiting(shop.two);
      const sent = performance.now();
      const job = await createJob(shop.one, shop.integrator, { route: 'fast' });
      const answer = await waiting;
      delays.push(performance.now() - sent);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ id: job.id, agent_id: agent.uuid });
    }
    delays.sort((a, b) => a - b);
    console.log(
      `cross-instance wake-up over LISTEN/NOTIFY, POST /printing/jobs on instance A sent → job claimed by a long-poll on B: p50 ${delays[10]!.toFixed(1)} ms, max ${delays[19]!.toFixed(1)} ms (20 jobs)`,
    );
    expect(delays[19]).toBeLessThan(wellUnderTheWait);
  });

  it('a job queued by the CLI (--database-url) wakes an agent waiting on an instance', async () => {
    const agent = await registerAgent(shop.one, shop.company, ['from-cli'], agentToken);
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-pg-cli-'));
    try {
      const file = join(dir, 'wake.txt');
      writeFileSync(file, 'wake up');
      // The longest wait: starting a CLI process can take seconds on a loaded machine, and the
      // wake-up is timed from the moment the CLI has committed the job and exited.
      const waiting = through(shop.two, agent).next(30);
      await untilWaiting(shop.two);
      const { stdout } = await run(process.execPath, [
        cli,
        ...['job', 'create', '--company', String(shop.company), '--route', 'from-cli'],
        ...['--file', file, '--database-url', shop.instances.databaseUrl!],
      ]);
      const committed = performance.now();
      const answer = await waiting;
      const delay = performance.now() - committed;
      console.log(
        `CLI job reached the agent waiting on an instance ${delay.toFixed(0)} ms after the CLI exited`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.data.id).toBe(Number(stdout.trim()));
      expect(delay).toBeLessThan(wellUnderTheWait);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a lost LISTEN connection is opened again, and a job queued meanwhile still wakes the waiter', async () => {
    const notifier = notifierOf(shop.two);
    const sessions = notifier.sessions;
    const pid = notifier.backendPid;
    expect(pid).toBeGreaterThan(0);
    const agent = await registerAgent(shop.two, shop.company, ['reconnect'], agentToken);
    const waiting = agent.next(wait);
    await untilWaiting(shop.two);
    await sql`select pg_terminate_backend(${pid})`.execute(shop.one.app.services.storage.db);
    await until('disconnected', () => !notifier.isListening);
    const sent = performance.now();
    const job = await createJob(shop.one, shop.integrator, { route: 'reconnect' });
    // Its NOTIFY went out while instance B listened to nothing: it was lost there.
    expect(notifier.sessions).toBe(sessions);
    const answer = await waiting;
    const delay = performance.now() - sent;
    console.log(`waiter woken ${delay.toFixed(0)} ms after a job queued during the outage`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.id).toBe(job.id);
    expect(delay).toBeLessThan(wellUnderTheWait);
    expect(notifier.isListening).toBe(true);
    expect(notifier.sessions).toBe(sessions + 1);
    expect(notifier.backendPid).not.toBe(pid);
    // And notices flow again on the new connection.
    const next = agent.next(wait);
    await untilWaiting(shop.two);
    const start = performance.now();
    const later = await createJob(shop.one, shop.integrator, { route: 'reconnect' });
    const again = await next;
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(later.id);
    expect(performance.now() - start).toBeLessThan(wellUnderTheWait);
  });

  it('PUT /printing/routes of one agent racing through both instances: every answer 200, one set kept', async () => {
    const agent = await registerAgent(shop.one, shop.company, [], agentToken);
    for (let round = 0; round < 3; round++) {
      const sets = Array.from({ length: 8 }, (_, n) => [`shared-${round}`, `own-${round}-${n}`]);
      const answers = await Promise.all(
        sets.map((names, n) =>
          through(n % 2 ? shop.two : shop.one, agent).call('PUT', '/printing/routes', {
            routes: names.map((name) => ({ name, printer: 'EPSON' })),
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(sets.map(() => 200));
      const config = await agent.call('GET', '/printing/config');
      const saved = config.body.data.routes.map((route: { name: string }) => route.name);
      expect(sets).toContainEqual(saved);
    }
  });
});
