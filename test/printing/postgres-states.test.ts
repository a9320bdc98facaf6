import { beforeAll, describe, expect, it } from 'vitest';
import { createJob, registerAgent } from './helpers.ts';
import {
  companyOnInstances,
  through,
  untilWaiting,
  wait,
  wellUnderTheWait,
} from './two-instances.ts';

/**
 * The print job state machine and the sweeps on a real PostgreSQL, across two server
 * instances on one fresh database: whichever instance an agent calls, the same rules.
 */

const shop = companyOnInstances('postgres');
/** One `printing.agent` token shared by every agent, as a shop would deploy it. */
let agentToken: string;

beforeAll(async () => {
  agentToken = await shop.one.token(shop.company, ['printing.agent']);
});

describe('state machine on PostgreSQL, across instances', () => {
  it('confirm by the holder; 409 for another agent; confirm twice is harmless', async () => {
    const holder = await registerAgent(shop.one, shop.company, ['states'], agentToken);
    const other = await registerAgent(shop.two, shop.company, ['states'], agentToken);
    const job = await createJob(shop.two, shop.integrator, { route: 'states' });
    const claimed = await holder.next();
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toMatchObject({ id: job.id, status: 'claimed', attempts: 1 });
    expect((await other.next()).status).toBe(204);
    for (const action of ['confirm', 'error']) {
      const refused = await other.call('POST', `/printing/jobs/${job.id}/${action}`, {
        message: 'not mine',
      });
      expect(refused.status, action).toBe(409);
    }
    // The holder confirms through the other instance.
    const confirmed = await through(shop.two, holder).call(
      'POST',
      `/printing/jobs/${job.id}/confirm`,
      {
        printer: 'EPSON',
      },
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({ status: 'printed', printer: 'EPSON' });
    const again = await holder.call('POST', `/printing/jobs/${job.id}/confirm`, {});
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(confirmed.body.data);
    expect((await other.call('POST', `/printing/jobs/${job.id}/retry`)).status).toBe(409);
  });

  it('error, retry (same id), reprint (a new job) — and the waiters of the other instance hear of them', async () => {
    const agent = await registerAgent(shop.one, shop.company, ['requeue'], agentToken);
    const job = await createJob(shop.one, shop.integrator, { route: 'requeue' });
    expect((await agent.next()).status).toBe(200);
    const failed = await agent.call('POST', `/printing/jobs/${job.id}/error`, {
      message: 'paper jam',
      code: 'jam',
    });
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      error: { message: 'paper jam', code: 'jam' },
    });
    expect(
      (await agent.call('POST', `/printing/jobs/${job.id}/error`, { message: 'x' })).status,
    ).toBe(409);

    // Retried through instance A while the agent waits on instance B.
    const onTwo = through(shop.two, agent);
    let waiting = onTwo.next(wait);
    await untilWaiting(shop.two);
    let sent = performance.now();
    const retried = await agent.call('POST', `/printing/jobs/${job.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ id: job.id, status: 'queued', error: null });
    let answer = await waiting;
    expect(performance.now() - sent).toBeLessThan(wellUnderTheWait);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: job.id, attempts: 2 });
    expect((await agent.call('POST', `/printing/jobs/${job.id}/retry`)).status).toBe(409);
    expect((await agent.call('POST', `/printing/jobs/${job.id}/reprint`)).status).toBe(409);
    expect((await onTwo.call('POST', `/printing/jobs/${job.id}/confirm`, {})).status).toBe(200);

    waiting = onTwo.next(wait);
    await untilWaiting(shop.two);
    sent = performance.now();
    const reprint = await agent.call('POST', `/printing/jobs/${job.id}/reprint`);
    expect(reprint.status).toBe(201);
    expect(reprint.body.data).toMatchObject({ status: 'queued', reprint_of: job.id });
    expect(reprint.body.data.id).not.toBe(job.id);
    answer = await waiting;
    expect(performance.now() - sent).toBeLessThan(wellUnderTheWait);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: reprint.body.data.id, reprint_of: job.id });

    const detail = await shop.two.request('GET', `/printing/jobs/${job.id}`, {
      token: shop.integrator,
    });
    expect(detail.body.data.events.map((e: { to: string }) => e.to)).toEqual([
      'queued',
      'claimed',
      'failed',
      'queued',
      'claimed',
      'printed',
    ]);
  });

  it('a lease that runs out fails the job on the sweep; expired jobs expire; either instance may sweep', async () => {
    const agent = await registerAgent(shop.two, shop.company, ['lease'], agentToken);
    const job = await createJob(shop.one, shop.integrator, { route: 'lease' });
    const stale = await createJob(shop.one, shop.integrator, {
      route: 'lease-idle',
      expires_in: 5,
    });
    expect((await agent.next()).body.data.id).toBe(job.id);
    // Instance A's clock has not moved: its sweep finds nothing due.
    expect(await shop.one.app.services.printing.sweep()).toEqual({
      leaseExpired: [],
      expired: [],
      held: [],
    });
    shop.two.clock.advance((shop.two.app.services.config.leaseSeconds + 1) * 1000);
    const swept = await shop.two.app.services.printing.sweep();
    expect(swept.leaseExpired).toContain(job.id);
    expect(swept.expired).toContain(stale.id);
    const read = await shop.one.request('GET', `/printing/jobs/${job.id}`, {
      token: shop.integrator,
    });
    expect(read.body.data).toMatchObject({
      status: 'failed',
      error: { code: 'lease_expired' },
    });
    expect((await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {})).status).toBe(409);
    const expired = await shop.one.request('GET', `/printing/jobs/${stale.id}`, {
      token: shop.integrator,
    });
    expect(expired.body.data.status).toBe('expired');
    // Swept once: a second sweep, on either instance, has nothing left to do.
    shop.one.clock.advance((shop.one.app.services.config.leaseSeconds + 1) * 1000);
    const results = await Promise.all([
      shop.one.app.services.printing.sweep(),
      shop.two.app.services.printing.sweep(),
    ]);
    for (const result of results) {
      expect(result.leaseExpired).not.toContain(job.id);
      expect(result.expired).not.toContain(stale.id);
    }
  });
});
