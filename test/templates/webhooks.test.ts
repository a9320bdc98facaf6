import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent } from '../printing/helpers.ts';
import { dispatch, localReceivers, subscribe } from '../webhooks/helpers.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { createTemplate, receiptData } from './helpers.ts';

/**
 * A template job's webhook events, on both databases: created, claimed and printed as for
 * any job; the printed job is the rendered one (its content type, size and sha256 are the
 * bytes the printer got), and a failed render is a `print_job.failed` with its code.
 */
describe.each(databaseKinds)('template job webhooks on %s', (kind) => {
  let server: TestServer;
  let company: number;
  let token: string;
  const receiver = new Receiver();
  beforeAll(async () => {
    server = await startTestServerOn(kind, {
      config: localReceivers,
      webhooks: { timeoutMs: 1000 },
    });
    company = await server.createCompany('Hooked shop');
    token = await server.token(company, [
      'webhooks.manage',
      'printing.templates.write',
      'printing.jobs.create',
      'printing.jobs.read',
    ]);
    await receiver.start();
    await subscribe(server, token, receiver, [
      'print_job.created',
      'print_job.claimed',
      'print_job.printed',
      'print_job.failed',
    ]);
  });
  afterAll(async () => {
    await server.close();
    await receiver.stop();
  });

  it('created, claimed and printed; printed carries the rendered bytes; a failed render is failed', async () => {
    await createTemplate(server, token, { name: 'hooked' });
    await createTemplate(server, token, {
      name: 'hooked-label',
      kind: 'label',
      source: '^XA^FD{{ x }}^FS^XZ',
    });
    const agent = await registerAgent(server, company, []);
    await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'till', printer: 'P', profile: { language: 'escpos', width_mm: 80 } }],
    });
    const job = await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'till', template: 'hooked', data: receiptData },
    });
    const claimed = await agent.next();
    await agent.call('POST', `/printing/jobs/${job.body.data.id}/confirm`, { printer: 'P' });
    // A label to a receipt printer is refused at its creation; one queued while the route
    // printed labels fails at its claim once the route prints receipts.
    const routeFor = (language: 'escpos' | 'zpl') =>
      agent.call('PUT', '/printing/routes', {
        routes: [{ name: 'till', printer: 'P', profile: { language, width_mm: 80 } }],
      });
    await routeFor('zpl');
    const label = await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'till', template: 'hooked-label', data: { x: 1 } },
    });
    await routeFor('escpos');
    expect((await agent.next()).status).toBe(204);
    await dispatch(server);
    expect(receiver.unverified).toEqual([]);
    const events = receiver.events.map((event) => [event.type, event.data.id]);
    expect(events).toEqual([
      ['print_job.created', job.body.data.id],
      ['print_job.claimed', job.body.data.id],
      ['print_job.printed', job.body.data.id],
      ['print_job.created', label.body.data.id],
      ['print_job.claimed', label.body.data.id],
      ['print_job.failed', label.body.data.id],
    ]);
    const printed = receiver.events[2]!.data;
    expect(printed).toMatchObject({
      content_type: 'application/vnd.escpos',
      sha256: claimed.body.data.sha256,
      size: claimed.body.data.size,
    });
    expect(receiver.events[5]!.data.error.code).toBe('template_render_failed');
  });
});
