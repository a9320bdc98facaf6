import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent, sampleText } from './helpers.ts';

describe('print jobs: create, claim, confirm', () => {
  let server: TestServer;
  let company: number;
  let integrator: string;
  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany('Print shop');
    integrator = await integratorToken(server, company);
  });
  afterAll(() => server.close());

  it('queues a job with sha256, size, defaults and a Location', async () => {
    const answer = await server.request('POST', '/printing/jobs', {
      token: integrator,
      body: { route: 'receipts', content_type: 'text/plain', content_base64: sampleText },
    });
    expect(answer.status).toBe(201);
    const job = answer.body.data;
    const bytes = Buffer.from(sampleText, 'base64');
    expect(job).toMatchObject({
      route: 'receipts',
      status: 'queued',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      copies: 1,
      priority: 5,
      options: {},
      attempts: 0,
      agent_id: null,
      error: null,
      reprint_of: null,
    });
    expect(answer.headers.get('location')).toBe(`${server.api}/printing/jobs/${job.id}`);
  });

  it('hands the job to an agent with its document, and the holder confirms it once', async () => {
    const agent = await registerAgent(server, company, ['labels']);
    const job = await createJob(server, integrator, {
      route: 'labels',
      copies: 2,
      options: { paper: 'a6', orientation: 'landscape' },
      title: 'Label 1',
    });
    const claimed = await agent.next();
    expect(claimed.status).toBe(200);
    expect(claimed.body.data).toMatchObject({
      id: job.id,
      status: 'claimed',
      agent_id: agent.uuid,
      attempts: 1,
      copies: 2,
      options: { paper: 'a6', orientation: 'landscape' },
    });
    expect(claimed.body.data.lease_expires_at).not.toBeNull();
    expect(claimed.body.data.document).toEqual({
      content_type: 'text/plain',
      size: job.size,
      sha256: job.sha256,
      content_base64: sampleText,
    });
    expect((await agent.next()).status).toBe(204);

    const confirmed = await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {
      printer: 'EPSON',
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({ status: 'printed', printer: 'EPSON' });
    expect(confirmed.body.data.printed_at).not.toBeNull();
    const again = await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {
      printer: 'OTHER',
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(confirmed.body.data);

    const detail = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(detail.status).toBe(200);
    expect(
      detail.body.data.events.map((e: { from: string; to: string }) => [e.from, e.to]),
    ).toEqual([
      [null, 'queued'],
      ['queued', 'claimed'],
      ['claimed', 'printed'],
    ]);
    expect(detail.body.data.events[1].agent_id).toBe(agent.uuid);
  });

  it('hands out the highest priority first, then the oldest', async () => {
    const agent = await registerAgent(server, company, ['a4']);
    const low = await createJob(server, integrator, { route: 'a4', priority: 1 });
    const high1 = await createJob(server, integrator, { route: 'a4', priority: 9 });
    const mid = await createJob(server, integrator, { route: 'a4' });
    const high2 = await createJob(server, integrator, { route: 'a4', priority: 9 });
    const order: number[] = [];
    for (let i = 0; i < 4; i++) order.push((await agent.next()).body.data.id);
    expect(order).toEqual([high1.id, high2.id, mid.id, low.id]);
  });

  it('across its routes, hands out the highest priority first, then the oldest', async () => {
    const agent = await registerAgent(server, company, ['across-x', 'across-y']);
    const x5 = await createJob(server, integrator, { route: 'across-x', priority: 5 });
    const y9 = await createJob(server, integrator, { route: 'across-y', priority: 9 });
    const y5 = await createJob(server, integrator, { route: 'across-y', priority: 5 });
    const x9 = await createJob(server, integrator, { route: 'across-x', priority: 9 });
    const order: number[] = [];
    for (let i = 0; i < 4; i++) order.push((await agent.next()).body.data.id);
    expect(order).toEqual([y9.id, x9.id, x5.id, y5.id]);
    expect((await agent.next()).status).toBe(204);
  });

  it('claims only from enabled routes of the calling agent', async () => {
    const agent = await registerAgent(server, company, []);
    await agent.call('PUT', '/printing/routes', {
      routes: [
        { name: 'kitchen', printer: 'P1', enabled: false },
        { name: 'bar', printer: 'P2' },
      ],
    });
    const kitchen = await createJob(server, integrator, { route: 'kitchen' });
    expect((await agent.next()).status).toBe(204);
    const bar = await createJob(server, integrator, { route: 'bar' });
    expect((await agent.next()).body.data.id).toBe(bar.id);
    const job = await server.request('GET', `/printing/jobs/${kitchen.id}`, { token: integrator });
    expect(job.body.data.status).toBe('queued');
  });

  it('stores one document for the same content', async () => {
    const content = Buffer.from('same bytes').toString('base64');
    const first = await createJob(server, integrator, { content_base64: content });
    const second = await createJob(server, integrator, { content_base64: content });
    expect(second.sha256).toBe(first.sha256);
    const rows = await server.app.services.storage.db
      .selectFrom('print_documents')
      .select('id')
      .where('company_id', '=', company)
      .where('sha256', '=', first.sha256)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('accepts each of the four content types', async () => {
    for (const [contentType, content] of [
      ['application/pdf', '%PDF-1.4\n%%EOF\n'],
      ['application/vnd.zebra.zpl', '^XA^FDlabel^FS^XZ'],
      ['application/vnd.escpos', '\x1b@receipt\n'],
      ['text/plain', 'receipt\n'],
    ]) {
      const job = await createJob(server, integrator, {
        content_type: contentType,
        content_base64: Buffer.from(content!, 'latin1').toString('base64'),
      });
      expect(job.content_type).toBe(contentType);
    }
  });
});
