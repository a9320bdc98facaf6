import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStatus } from '../../shared/printing.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from './helpers.ts';

/**
 * docs/reference.md: queued → claimed → printed | failed; queued → expired; failed | expired →
 * queued by retry (same id); printed | failed → a new queued job by reprint. Any other
 * transition is 409. One test per allowed and per refused transition.
 */
describe('print job state machine', () => {
  let server: TestServer;
  let company: number;
  let integrator: string;
  let agentToken: string;
  let routeNumber = 0;

  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany();
    integrator = await integratorToken(server, company);
    agentToken = await server.token(company, ['printing.agent']);
  });
  afterAll(() => server.close());

  /** A job in `status`, on a route of its own, held (if ever) by `holder`. */
  async function jobIn(status: JobStatus) {
    const route = `state-${++routeNumber}`;
    const holder = await registerAgent(server, company, [route], agentToken);
    const other = await registerAgent(server, company, [route], agentToken);
    const job = await createJob(server, integrator, {
      route,
      ...(status === 'expired' ? { expires_in: 60 } : {}),
    });
    if (status === 'expired') {
      server.clock.advance(61_000);
      const swept = await server.app.services.printing.sweep();
      expect(swept.expired).toContain(job.id);
    }
    if (status !== 'queued' && status !== 'expired') {
      const claimed = await holder.next();
      expect(claimed.body.data.id).toBe(job.id);
    }
    if (status === 'printed') {
      expect((await holder.call('POST', `/printing/jobs/${job.id}/confirm`)).status).toBe(200);
    }
    if (status === 'failed') {
      const failed = await holder.call('POST', `/printing/jobs/${job.id}/error`, {
        message: 'Paper jam',
        code: 'paper_jam',
      });
      expect(failed.status).toBe(200);
    }
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data.status).toBe(status);
    return { id: job.id, route, holder, other };
  }

  type Action = 'retry' | 'reprint' | 'confirm' | 'error' | 'confirm-by-other' | 'error-by-other';

  function act(action: Action, id: number, holder: TestAgent, other: TestAgent) {
    switch (action) {
      case 'retry':
      case 'reprint':
        return holder.call('POST', `/printing/jobs/${id}/${action}`);
      case 'confirm':
        return holder.call('POST', `/printing/jobs/${id}/confirm`, { printer: 'EPSON' });
      case 'error':
        return holder.call('POST', `/printing/jobs/${id}/error`, { message: 'Out of paper' });
      case 'confirm-by-other':
        return other.call('POST', `/printing/jobs/${id}/confirm`);
      case 'error-by-other':
        return other.call('POST', `/printing/jobs/${id}/error`, { message: 'Not mine' });
    }
  }

  describe.each<[JobStatus, Action, number, JobStatus | 'new job' | 'unchanged']>([
    ['claimed', 'confirm', 200, 'printed'],
    ['claimed', 'error', 200, 'failed'],
    ['failed', 'retry', 200, 'queued'],
    ['expired', 'retry', 200, 'queued'],
    ['printed', 'reprint', 201, 'new job'],
    ['failed', 'reprint', 201, 'new job'],
    ['printed', 'confirm', 200, 'unchanged'],
  ])('allowed: %s --%s-->', (from, action, status, to) => {
    it(`answers ${status} and leaves the job ${to}`, async () => {
      const { id, holder, other, route } = await jobIn(from);
      const before = await server.request('GET', `/printing/jobs/${id}`, { token: integrator });
      const answer = await act(action, id, holder, other);
      expect(answer.status).toBe(status);
      const after = await server.request('GET', `/printing/jobs/${id}`, { token: integrator });
      if (to === 'new job') {
        const created = answer.body.data;
        expect(created.id).not.toBe(id);
        expect(created).toMatchObject({
          status: 'queued',
          reprint_of: id,
          route,
          sha256: before.body.data.sha256,
          attempts: 0,
        });
        expect(answer.headers.get('location')).toBe(`${server.api}/printing/jobs/${created.id}`);
        expect(after.body.data).toEqual(before.body.data);
        // The reprint prints again: the route's agent gets the new job, not the old one.
        expect((await holder.next()).body.data.id).toBe(created.id);
        return;
      }
      if (to === 'unchanged') {
        expect(after.body.data).toEqual(before.body.data);
        return;
      }
      expect(answer.body.data.status).toBe(to);
      expect(after.body.data.status).toBe(to);
      const last = after.body.data.events.at(-1);
      expect(last).toMatchObject({ from, to });
      if (action === 'retry') {
        expect(answer.body.data).toMatchObject({ id, agent_id: null, error: null });
        expect((await holder.next()).body.data).toMatchObject({ id, status: 'claimed' });
      }
      if (action === 'error') {
        expect(answer.body.data.error).toEqual({ message: 'Out of paper', code: null });
      }
    });
  });

  describe.each<[JobStatus, Action]>([
    ['queued', 'retry'],
    ['queued', 'reprint'],
    ['queued', 'confirm'],
    ['queued', 'error'],
    ['claimed', 'retry'],
    ['claimed', 'reprint'],
    ['claimed', 'confirm-by-other'],
    ['claimed', 'error-by-other'],
    ['printed', 'retry'],
    ['printed', 'error'],
    ['printed', 'confirm-by-other'],
    ['failed', 'confirm'],
    ['failed', 'error'],
    ['expired', 'reprint'],
    ['expired', 'confirm'],
    ['expired', 'error'],
  ])('refused: %s --%s-->', (from, action) => {
    it('answers 409 and changes nothing', async () => {
      const { id, holder, other } = await jobIn(from);
      const before = await server.request('GET', `/printing/jobs/${id}`, { token: integrator });
      const answer = await act(action, id, holder, other);
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ success: false, code: 'conflict' });
      expect(answer.body.message).toMatch(new RegExp(`Job ${id}`));
      const after = await server.request('GET', `/printing/jobs/${id}`, { token: integrator });
      expect(after.body.data).toEqual(before.body.data);
    });
  });

  it('a lapsed lease fails the job with lease_expired, never re-queues it', async () => {
    const { id, holder } = await jobIn('claimed');
    server.clock.advance(server.app.services.config.leaseSeconds * 1000 + 1000);
    const swept = await server.app.services.printing.sweep();
    expect(swept.leaseExpired).toContain(id);
    const job = await server.request('GET', `/printing/jobs/${id}`, { token: integrator });
    expect(job.body.data).toMatchObject({ status: 'failed', agent_id: holder.uuid, attempts: 1 });
    expect(job.body.data.error.code).toBe('lease_expired');
    expect(job.body.data.events.at(-1)).toMatchObject({ from: 'claimed', to: 'failed' });
    expect((await holder.next()).status).toBe(204);
    // The holder's late report is refused: the job is no longer its to report.
    expect((await holder.call('POST', `/printing/jobs/${id}/error`, { message: 'x' })).status).toBe(
      409,
    );
  });

  it('heartbeats extend the lease of held jobs and release the lost ones', async () => {
    const held = await jobIn('claimed');
    const lost = await jobIn('printed');
    const lease = server.app.services.config.leaseSeconds * 1000;
    server.clock.advance(lease - 5000);
    const beat = await held.holder.call('POST', '/printing/heartbeat', {
      held_job_ids: [held.id, lost.id],
    });
    expect(beat.status).toBe(200);
    expect(beat.body.data).toMatchObject({
      extended_job_ids: [held.id],
      released_job_ids: [lost.id],
    });
    server.clock.advance(10_000);
    const swept = await server.app.services.printing.sweep();
    expect(swept.leaseExpired).not.toContain(held.id);
    const job = await server.request('GET', `/printing/jobs/${held.id}`, { token: integrator });
    expect(job.body.data.status).toBe('claimed');
    expect(job.body.data.lease_expires_at).toBe(beat.body.data.lease_expires_at);
  });

  it('a job past expires_at is not handed out, and the sweep expires it', async () => {
    const route = `state-${++routeNumber}`;
    const agent = await registerAgent(server, company, [route], agentToken);
    const job = await createJob(server, integrator, { route, expires_in: 30 });
    expect(job.expires_at).not.toBeNull();
    server.clock.advance(31_000);
    expect((await agent.next()).status).toBe(204);
    const swept = await server.app.services.printing.sweep();
    expect(swept.expired).toEqual([job.id]);
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data.status).toBe('expired');
    expect(read.body.data.events.map((e: { to: string }) => e.to)).toEqual(['queued', 'expired']);
  });

  it('records every transition with agent and time', async () => {
    const { id, holder } = await jobIn('failed');
    await holder.call('POST', `/printing/jobs/${id}/retry`);
    await holder.next();
    await holder.call('POST', `/printing/jobs/${id}/confirm`);
    const job = await server.request('GET', `/printing/jobs/${id}`, { token: integrator });
    expect(
      job.body.data.events.map(
        (e: { from: string | null; to: string; agent_id: string | null }) => [
          e.from,
          e.to,
          e.agent_id,
        ],
      ),
    ).toEqual([
      [null, 'queued', null],
      ['queued', 'claimed', holder.uuid],
      ['claimed', 'failed', holder.uuid],
      ['failed', 'queued', holder.uuid],
      ['queued', 'claimed', holder.uuid],
      ['claimed', 'printed', holder.uuid],
    ]);
    expect(job.body.data.attempts).toBe(2);
    for (const event of job.body.data.events) expect(event.at).toMatch(/^\d{4}-.*Z$/);
  });
});
