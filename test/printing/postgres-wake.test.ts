import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJob, registerAgent } from './helpers.ts';
import { companyOnInstances, notifierOf, until, untilWaiting, wait } from './two-instances.ts';

/**
 * On PostgreSQL a job is announced where an agent will take it (docs/printing.md, "Notifier
 * and PostgreSQL"): to an agent waiting in the queuing instance alone, without a NOTIFY
 * (else every instance would wake one agent to race for it), and to every instance when
 * nobody waits there. A LISTEN connection of the test's own counts what went out on the
 * channel; a marker NOTIFY sent after the work, delivered in commit order, says when every
 * notice of the work has arrived.
 */

const shop = companyOnInstances('postgres');
let agentToken: string;
let listener: pg.Client;
const heard: string[] = [];

beforeAll(async () => {
  agentToken = await shop.one.token(shop.company, ['printing.agent']);
  listener = new pg.Client({ connectionString: shop.instances.databaseUrl });
  await listener.connect();
  listener.on('notification', (message) => heard.push(message.payload ?? ''));
  await listener.query('listen shopdesk_jobs');
});

afterAll(async () => {
  await listener?.end();
});

/**
 * The payloads heard on the jobs' channel while `work` ran: what its commits sent, which
 * PostgreSQL delivers before a marker committed after them.
 */
async function noticesDuring(work: () => Promise<unknown>): Promise<string[]> {
  heard.length = 0;
  await work();
  const marker = `marker ${Math.random()}`;
  await sql`select pg_notify('shopdesk_jobs', ${marker})`.execute(shop.one.app.services.storage.db);
  const deadline = performance.now() + 5000;
  while (!heard.includes(marker)) {
    if (performance.now() > deadline) throw new Error('the marker notice never came');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return heard.filter((payload) => payload !== marker);
}

describe('where a queued job is announced, PostgreSQL', () => {
  it('to an agent waiting in the queuing instance: woken there, no NOTIFY', async () => {
    const agent = await registerAgent(shop.one, shop.company, ['here'], agentToken);
    const notices = await noticesDuring(async () => {
      const waiting = agent.next(wait);
      await untilWaiting(shop.one);
      const job = await createJob(shop.one, shop.integrator, { route: 'here' });
      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(answer.body.data.id).toBe(job.id);
    });
    expect(notices).toEqual([]);
  });

  it('with nobody waiting in the queuing instance: a NOTIFY, and the agent on the other takes it', async () => {
    const agent = await registerAgent(shop.two, shop.company, ['there'], agentToken);
    let jobId = 0;
    const notices = await noticesDuring(async () => {
      const waiting = agent.next(wait);
      await untilWaiting(shop.two);
      jobId = (await createJob(shop.one, shop.integrator, { route: 'there' })).id;
      expect((await waiting).body.data.id).toBe(jobId);
    });
    expect(notices).toEqual([`${shop.company}:there:${jobId}`]);
  });

  it('a notice that nobody in this instance can take goes to every instance', async () => {
    heard.length = 0;
    // Sent after the call returns (a NOTIFY of its own): waited for, not for a marker.
    notifierOf(shop.one).passOn(shop.company, 'nobody-here');
    await until('the notice heard', () => heard.includes(`${shop.company}:nobody-here:0`));
  });
});
