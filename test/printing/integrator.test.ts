import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JobStatus } from '../../shared/printing.ts';
import { dialects } from '../helpers/instances.ts';
import { createJob, integratorToken, registerAgent, type TestAgent } from './helpers.ts';
import { companyOnInstances } from './two-instances.ts';

/**
 * What integrators do to their jobs (docs/printing.md): cancel a queued job (a final state
 * that retry queues again), and retry or reprint without being an agent. On SQLite and on
 * two PostgreSQL instances (the integrator calls one, the agent the other).
 */
describe.each(dialects)('integrators and their jobs on %s', (dialect) => {
  const shop = companyOnInstances(dialect);

  const act = (job: number, action: string, headers: Record<string, string> = {}) =>
    shop.two.request('POST', `/printing/jobs/${job}/${action}`, {
      token: shop.integrator,
      headers,
    });
  const read = async (job: number) =>
    (await shop.one.request('GET', `/printing/jobs/${job}`, { token: shop.integrator })).body.data;

  /** A job in `status` on a route of its own, with the agent that serves the route. */
  async function jobIn(status: JobStatus): Promise<{ id: number; agent: TestAgent }> {
    const route = shop.nextRoute('integrator');
    const agent = await registerAgent(shop.one, shop.company, [route]);
    const job = await createJob(shop.one, shop.integrator, {
      route,
      ...(status === 'expired' ? { expires_in: 60 } : {}),
    });
    if (status === 'expired') {
      for (const server of new Set([shop.one, shop.two])) server.clock.advance(61_000);
      expect((await shop.one.app.services.printing.sweep()).expired).toContain(job.id);
    }
    if (['claimed', 'printed', 'failed'].includes(status)) {
      expect((await agent.next()).body.data.id).toBe(job.id);
    }
    if (status === 'printed') await agent.call('POST', `/printing/jobs/${job.id}/confirm`);
    if (status === 'failed') {
      await agent.call('POST', `/printing/jobs/${job.id}/error`, { message: 'Paper jam' });
    }
    if (status === 'cancelled') expect((await act(job.id, 'cancel')).status).toBe(200);
    expect((await read(job.id)).status).toBe(status);
    return { id: job.id, agent };
  }

  it('cancel: queued → cancelled, with its event; no agent gets it; history filters it', async () => {
    const { id, agent } = await jobIn('queued');
    const answer = await act(id, 'cancel');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id, status: 'cancelled', agent_id: null });
    expect((await agent.next()).status).toBe(204);
    const detail = await read(id);
    expect(detail.events.at(-1)).toMatchObject({
      from: 'queued',
      to: 'cancelled',
      agent_id: null,
      message: 'cancel',
    });
    const history = await shop.one.request('GET', '/printing/history?status=cancelled', {
      token: shop.integrator,
    });
    expect(history.body.data.map((job: { id: number }) => job.id)).toContain(id);
    expect(history.body.data.every((job: { status: string }) => job.status === 'cancelled')).toBe(
      true,
    );
  });

  it.each(['claimed', 'printed', 'failed', 'expired', 'cancelled'] as const)(
    'cancel of a %s job → 409 naming its state, and the job is unchanged',
    async (status) => {
      const { id } = await jobIn(status);
      const before = await read(id);
      const answer = await act(id, 'cancel');
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ success: false, code: 'conflict' });
      expect(answer.body.message).toContain(`Job ${id} is ${status}`);
      expect(await read(id)).toEqual(before);
    },
  );

  it('cancel of an unknown job, or of another company, → 404', async () => {
    expect((await act(999_999, 'cancel')).status).toBe(404);
    const other = await shop.one.createCompany();
    const theirs = await createJob(shop.one, await integratorToken(shop.one, other));
    expect((await act(theirs.id, 'cancel')).status).toBe(404);
    expect((await read(theirs.id)) ?? null).toBeNull();
  });

  it('retry of a cancelled job queues it again under its id, and an agent prints it', async () => {
    const { id, agent } = await jobIn('cancelled');
    const retried = await act(id, 'retry');
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ id, status: 'queued', route_online: true });
    const claimed = await agent.next();
    expect(claimed.body.data).toMatchObject({ id, status: 'claimed', attempts: 1 });
    expect((await read(id)).events.map((e: { to: string }) => e.to)).toEqual([
      'queued',
      'cancelled',
      'queued',
      'claimed',
    ]);
  });

  it('retry and reprint with printing.jobs.create and no X-Agent-Id', async () => {
    const failed = await jobIn('failed');
    const retried = await act(failed.id, 'retry');
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ id: failed.id, status: 'queued', agent_id: null });
    expect((await read(failed.id)).events.at(-1)).toMatchObject({
      to: 'queued',
      agent_id: null,
      message: 'retry',
    });
    const printed = await jobIn('printed');
    const reprinted = await act(printed.id, 'reprint');
    expect(reprinted.status).toBe(201);
    expect(reprinted.body.data).toMatchObject({
      status: 'queued',
      reprint_of: printed.id,
      route_online: true,
    });
    expect(reprinted.headers.get('location')).toBe(
      `${shop.two.api}/printing/jobs/${reprinted.body.data.id}`,
    );
  });

  it('X-Agent-Id, when an integrator sends it, is still checked: 400 malformed, 409 unknown; a registered one is recorded', async () => {
    const failed = await jobIn('failed');
    const malformed = await act(failed.id, 'retry', { 'x-agent-id': 'till-1' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toContain('X-Agent-Id');
    const unknown = await act(failed.id, 'reprint', { 'x-agent-id': randomUUID() });
    expect(unknown.status).toBe(409);
    expect((await read(failed.id)).status).toBe('failed');
    const retried = await act(failed.id, 'retry', { 'x-agent-id': failed.agent.uuid });
    expect(retried.status).toBe(200);
    expect((await read(failed.id)).events.at(-1)).toMatchObject({ agent_id: failed.agent.uuid });
  });

  it('cancel and claim racing for one job: exactly one of them wins', async () => {
    const route = `race-${dialect}`;
    const agent = await registerAgent(shop.two, shop.company, [route]);
    for (let round = 0; round < 10; round++) {
      const job = await createJob(shop.one, shop.integrator, { route });
      const [cancelled, claimed] = await Promise.all([act(job.id, 'cancel'), agent.next()]);
      const state = (await read(job.id)).status;
      if (cancelled.status === 200) {
        expect(claimed.status).toBe(204);
        expect(state).toBe('cancelled');
      } else {
        expect(cancelled.status).toBe(409);
        expect(cancelled.body.message).toContain('claimed');
        expect(claimed.body.data.id).toBe(job.id);
        expect(state).toBe('claimed');
        await agent.call('POST', `/printing/jobs/${job.id}/confirm`);
      }
    }
  });
});
