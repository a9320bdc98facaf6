import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { retryDelaysMs } from '../../server/webhooks/retry-schedule.ts';
import type { TestServer } from '../helpers/server.ts';
import { deliveriesOf, dispatch, startWebhookServer, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

/**
 * Delivery you can trust (docs/webhooks.md): 2xx is delivered, anything else is tried again
 * on the schedule with the same webhook-id, a timeout is a failure, redirects are not
 * followed, an endpoint failing for 5 days is disabled. The schedule runs on the server's
 * clock, which the tests move: no test waits hours.
 */
describe('webhook delivery', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  });

  /** A server (jitter off: `random` 0.5 gives each delay exactly), a company and a receiver. */
  async function setUp(options: { timeoutMs?: number } = {}) {
    const server = await startWebhookServer({
      webhooks: { random: () => 0.5, ...(options.timeoutMs && { timeoutMs: options.timeoutMs }) },
    });
    open.push(server);
    const token = await server.token(await server.createCompany(), ['webhooks.manage']);
    const receiver = await new Receiver().start();
    open.push({ close: () => receiver.stop() });
    const endpoint = await subscribe(server, token, receiver, ['print_job.printed']);
    const sendTest = async () => {
      const answer = await server.request('POST', `/webhooks/${endpoint.id}/test`, { token });
      expect(answer.status).toBe(202);
      return answer.body.data as { id: number; event_id: string };
    };
    const delivery = async (id: number) => {
      const found = (await deliveriesOf(server, token, endpoint.id)).find((d) => d.id === id);
      if (!found) throw new Error(`no delivery ${id}`);
      return found;
    };
    return { server, token, receiver, endpoint, sendTest, delivery };
  }

  /** Moves the clock past the next retry and sends what is due. */
  async function nextRetry(server: TestServer, delayMs: number): Promise<void> {
    server.clock.advance(delayMs + 1000);
    await dispatch(server);
  }

  it('tries again when the receiver is down, and delivers once it is up, with the same webhook-id', async () => {
    const { server, receiver, sendTest, delivery } = await setUp();
    await receiver.stop();
    const queued = await sendTest();
    await dispatch(server);
    const failed = await delivery(queued.id);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, last_response_status: null });
    expect(failed.last_error).toMatch(/ECONNREFUSED|connect/);
    const retryAt = Date.parse(failed.next_attempt_at!) - Date.parse(failed.last_attempt_at!);
    expect(retryAt).toBe(retryDelaysMs[0]);

    await receiver.start();
    await dispatch(server);
    expect(receiver.received).toHaveLength(0); // not due yet
    await nextRetry(server, retryDelaysMs[0]!);
    expect(receiver.received.map((r) => r.id)).toEqual([queued.event_id]);
    expect(receiver.unverified).toEqual([]);
    expect(await delivery(queued.id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('retries a 500 and stops at the 200: both attempts carry one webhook-id and one body', async () => {
    const { server, receiver, sendTest, delivery, endpoint, token } = await setUp();
    receiver.answer = (_request, index) =>
      index === 0 ? { status: 500, body: 'database down' } : { status: 200 };
    const queued = await sendTest();
    await dispatch(server);
    expect(await delivery(queued.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_response_status: 500,
      last_response_body: 'database down',
      last_error: 'answered 500',
    });
    const failing = await server.request('GET', `/webhooks/${endpoint.id}`, { token });
    expect(failing.body.data.failing_since).not.toBeNull();

    await nextRetry(server, retryDelaysMs[0]!);
    const [first, second] = receiver.received;
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    expect(receiver.unverified).toEqual([]);
    expect(await delivery(queued.id)).toMatchObject({
      status: 'delivered',
      attempts: 2,
      last_response_status: 200,
      last_error: null,
    });
    // A success ends the run of failures.
    const healthy = await server.request('GET', `/webhooks/${endpoint.id}`, { token });
    expect(healthy.body.data.failing_since).toBeNull();
  });

  it('counts an answer that does not come within the timeout as a failure', async () => {
    const { server, receiver, sendTest, delivery } = await setUp({ timeoutMs: 300 });
    receiver.answer = (_request, index) =>
      index === 0 ? { status: 200, delayMs: Number.POSITIVE_INFINITY } : { status: 200 };
    const queued = await sendTest();
    const started = performance.now();
    await dispatch(server);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await delivery(queued.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: 'no answer within 0.3 s',
    });
    await nextRetry(server, retryDelaysMs[0]!);
    expect(await delivery(queued.id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('follows no redirect: a 3xx is a failed attempt', async () => {
    const { server, receiver, sendTest, delivery } = await setUp();
    const elsewhere = await new Receiver().start();
    open.push({ close: () => elsewhere.stop() });
    receiver.answer = () => ({ status: 302, headers: { location: elsewhere.url } });
    const queued = await sendTest();
    await dispatch(server);
    expect(await delivery(queued.id)).toMatchObject({
      status: 'pending',
      last_response_status: 302,
      last_error: 'answered 302',
    });
    expect(elsewhere.received).toEqual([]);
  });

  it('walks the whole schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then the delivery is failed', async () => {
    const { server, receiver, sendTest, delivery } = await setUp();
    receiver.answer = () => ({ status: 503 });
    const queued = await sendTest();
    await dispatch(server);
    const gaps: number[] = [];
    for (const delay of retryDelaysMs) {
      const pending = await delivery(queued.id);
      gaps.push(Date.parse(pending.next_attempt_at!) - Date.parse(pending.last_attempt_at!));
      await nextRetry(server, delay);
    }
    expect(gaps).toEqual([...retryDelaysMs]);
    expect(await delivery(queued.id)).toMatchObject({
      status: 'failed',
      attempts: 8,
      next_attempt_at: null,
      last_response_status: 503,
    });
    expect(receiver.received).toHaveLength(8);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    // Nothing more, however long one waits.
    await nextRetry(server, 24 * 3_600_000);
    expect(receiver.received).toHaveLength(8);
  });

  it('disables an endpoint whose every attempt failed for 5 days in a row, and says why', async () => {
    const { server, token, receiver, endpoint, sendTest, delivery } = await setUp();
    receiver.answer = () => ({ status: 500 });
    const day = 24 * 3_600_000;
    await sendTest();
    await dispatch(server);
    for (let i = 0; i < 4; i++) {
      server.clock.advance(day);
      await sendTest();
      await dispatch(server);
    }
    let read = await server.request('GET', `/webhooks/${endpoint.id}`, { token });
    expect(read.body.data.enabled).toBe(true);

    server.clock.advance(day);
    const last = await sendTest();
    await dispatch(server);
    read = await server.request('GET', `/webhooks/${endpoint.id}`, { token });
    expect(read.body.data).toMatchObject({ enabled: false });
    expect(read.body.data.disabled_reason).toMatch(
      /^Disabled by the server: every attempt failed for 5 days, since .*Z\. Last error: answered 500$/,
    );
    // Its pending deliveries fail without an attempt; nothing more is sent to it.
    const pending = await deliveriesOf(server, token, endpoint.id);
    expect(pending.filter((d) => d.status === 'pending')).toEqual([]);
    expect((await delivery(last.id)).status).toBe('failed');
    const sent = receiver.received.length;
    const refused = await server.request('POST', `/webhooks/${endpoint.id}/test`, { token });
    expect(refused.status).toBe(409);
    await nextRetry(server, day);
    expect(receiver.received).toHaveLength(sent);

    // Enabled again by its owner: a retry sends the last one, and it arrives.
    receiver.answer = () => ({ status: 204 });
    await server.request('PATCH', `/webhooks/${endpoint.id}`, { token, body: { enabled: true } });
    const retried = await server.request(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${last.id}/retry`,
      { token },
    );
    expect(retried.status).toBe(202);
    await dispatch(server);
    expect(await delivery(last.id)).toMatchObject({ status: 'delivered', last_error: null });
    expect(receiver.received.at(-1)!.id).toBe(last.event_id);
  });

  it('releases an attempt cut by a shutdown without counting it, and sends it after the restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-webhooks-'));
    open.push({ close: async () => rmSync(dir, { recursive: true, force: true }) });
    const dbFile = join(dir, 'shopdesk.sqlite');
    const receiver = await new Receiver().start();
    open.push({ close: () => receiver.stop() });
    receiver.answer = (_request, index) =>
      index === 0 ? { status: 200, delayMs: Number.POSITIVE_INFINITY } : { status: 204 };
    const first = await startWebhookServer({ dbFile, webhooks: { timeoutMs: 30_000 } });
    const token = await first.token(await first.createCompany(), ['webhooks.manage']);
    const endpoint = await subscribe(first, token, receiver, ['stock.changed']);
    const queued = await first.request('POST', `/webhooks/${endpoint.id}/test`, { token });
    await receiver.waitFor(1);
    const started = performance.now();
    await first.close();
    // The attempt in flight was cut, not waited for.
    expect(performance.now() - started).toBeLessThan(5000);

    const second = await startWebhookServer({ dbFile });
    open.push(second);
    await receiver.waitFor(2);
    await dispatch(second);
    const [delivery] = await deliveriesOf(second, token, endpoint.id);
    expect(delivery).toMatchObject({ id: queued.body.data.id, status: 'delivered', attempts: 1 });
    expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id);
  });

  it('delivers every event after the receiver was down for an hour', async () => {
    const { server, receiver, sendTest, delivery } = await setUp();
    await receiver.stop();
    const queued: { id: number; event_id: string }[] = [];
    // Twenty events over the hour of the outage, each tried (and failing) as it comes.
    for (let minute = 0; minute < 60; minute += 3) {
      queued.push(await sendTest());
      await dispatch(server);
      server.clock.advance(3 * 60_000);
    }
    expect(receiver.received).toEqual([]);
    await receiver.start();
    // The receiver is back: within the schedule's next steps, every event arrives.
    for (let step = 0; step < 30; step++) {
      const pending = (await Promise.all(queued.map((q) => delivery(q.id)))).filter(
        (d) => d.status !== 'delivered',
      );
      if (pending.length === 0) break;
      // An attempt the dispatcher's own timer started while the statuses were read must end
      // before the clock jumps 10 minutes: past its lease it would be taken again.
      await dispatch(server);
      server.clock.advance(10 * 60_000);
      await dispatch(server);
    }
    const delivered = await Promise.all(queued.map((q) => delivery(q.id)));
    expect(delivered.map((d) => d.status)).toEqual(queued.map(() => 'delivered'));
    expect(receiver.unverified).toEqual([]);
    expect(receiver.received.map((r) => r.id).sort()).toEqual(queued.map((q) => q.event_id).sort());
  });
});
