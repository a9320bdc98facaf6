import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';
import {
  createTemplate,
  fetchBytes,
  receiptData,
  receiptSchema,
  receiptSource,
  startTemplateShop,
} from './helpers.ts';
import { darkIn, greyOf } from './png-pixels.ts';

/**
 * Templates end to end, on both databases: CRUD and versions, printer profiles on routes,
 * a job from data rendered at the claim for the claiming agent's profile (ESC/POS on an
 * Epson route, StarPRNT on a Star route, PDF on an office route), the recorded bytes
 * reprinted as they were, and a job's preview.
 */
describe.each(databaseKinds)('templates on %s', (kind) => {
  let server: TestServer;
  let company: number;
  let token: string;
  beforeAll(async () => {
    ({ server, company, token } = await startTemplateShop(kind, 'Template shop'));
  });
  afterAll(() => server.close());

  /** An agent serving `route` with `profile`. */
  async function agentWith(route: string, profile?: Record<string, unknown>): Promise<TestAgent> {
    const agent = await registerAgent(server, company, []);
    const put = await agent.call('PUT', '/printing/routes', {
      routes: [{ name: route, printer: 'PRINTER', ...(profile && { profile }) }],
    });
    expect(put.status).toBe(200);
    return agent;
  }

  it('creates, lists, reads, updates (a new version each time) and deletes a template', async () => {
    const created = await createTemplate(server, token, {
      name: 'crud',
      data_schema: receiptSchema,
      sample_data: receiptData,
    });
    expect(created).toMatchObject({
      name: 'crud',
      kind: 'receipt',
      version: 1,
      source: receiptSource,
      data_schema: receiptSchema,
      sample_data: receiptData,
    });
    const listed = await server.request('GET', '/printing/templates?per_page=100', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { name: string }) => t.name)).toContain('crud');
    expect(listed.body.meta.total).toBeGreaterThanOrEqual(1);

    const updated = await server.request('PATCH', `/printing/templates/${created.id}`, {
      token,
      body: { source: 'Thanks {{ order.number }}' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ version: 2, source: 'Thanks {{ order.number }}' });
    expect(updated.body.data.data_schema).toEqual(receiptSchema);

    const first = await server.request('GET', `/printing/templates/${created.id}/versions/1`, {
      token,
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ version: 1, source: receiptSource });
    const shown = await server.request('GET', `/printing/templates/${created.id}`, { token });
    expect(shown.body.data.version).toBe(2);

    const deleted = await server.request('DELETE', `/printing/templates/${created.id}`, { token });
    expect(deleted.status).toBe(204);
    const gone = await server.request('GET', `/printing/templates/${created.id}`, { token });
    expect(gone.status).toBe(404);
    // The name is free again.
    await createTemplate(server, token, { name: 'crud' });
  });

  it('keeps the profile of a route, as the agent and integrators read it', async () => {
    const profile = { language: 'starprnt', width_mm: 58, codepage: 'cp858', drawer: true };
    const agent = await agentWith('star-till', profile);
    const config = await agent.call('GET', '/printing/config');
    expect(config.body.data.routes[0]).toMatchObject({ name: 'star-till', profile });
    const listed = await server.request('GET', `/printing/agents/${agent.uuid}`, { token });
    expect(listed.body.data.routes[0].profile).toEqual(profile);
  });

  it('renders a job for the printer that claims it, and a reprint prints the same bytes', async () => {
    await createTemplate(server, token, { name: 'till', data_schema: receiptSchema });
    const epson = await agentWith('epson', { language: 'escpos', width_mm: 80 });
    const star = await agentWith('star', { language: 'starprnt', width_mm: 58 });
    const office = await agentWith('office', { language: 'pdf', width_mm: 'a4' });
    const printed: Record<string, Buffer> = {};
    for (const [route, agent, type] of [
      ['epson', epson, 'application/vnd.escpos'],
      ['star', star, 'application/vnd.star.starprnt'],
      ['office', office, 'application/pdf'],
    ] as const) {
      const job = await server.request('POST', '/printing/jobs', {
        token,
        body: { route, template: 'till', data: receiptData, title: `Order ${route}` },
      });
      expect(job.status).toBe(201);
      expect(job.body.data.content_type).toBe('application/vnd.shopdesk.template-data+json');
      const claimed = await agent.next();
      expect(claimed.status).toBe(200);
      expect(claimed.body.data).toMatchObject({ id: job.body.data.id, content_type: type });
      expect(claimed.body.data.document.content_type).toBe(type);
      const bytes = Buffer.from(claimed.body.data.document.content_base64, 'base64');
      printed[route] = bytes;
      expect(claimed.body.data.size).toBe(bytes.length);
      const confirmed = await agent.call('POST', `/printing/jobs/${job.body.data.id}/confirm`, {});
      expect(confirmed.status).toBe(200);

      const raw = await fetchBytes(
        server,
        'GET',
        `/printing/jobs/${job.body.data.id}/preview?format=raw`,
        token,
      );
      expect(raw.contentType).toBe(type);
      expect(raw.bytes.equals(bytes)).toBe(true);

      const reprint = await server.request('POST', `/printing/jobs/${job.body.data.id}/reprint`, {
        token,
      });
      expect(reprint.status).toBe(201);
      const again = await agent.next();
      expect(again.body.data.id).toBe(reprint.body.data.id);
      expect(Buffer.from(again.body.data.document.content_base64, 'base64').equals(bytes)).toBe(
        true,
      );
      await agent.call('POST', `/printing/jobs/${again.body.data.id}/confirm`, {});
      const png = await fetchBytes(
        server,
        'GET',
        `/printing/jobs/${reprint.body.data.id}/preview?format=png`,
        token,
      );
      expect(png.status).toBe(200);
      expect(png.contentType).toBe('image/png');
    }
    expect(printed.epson!.toString('latin1')).toContain('Croissant');
    expect(printed.star!.toString('latin1')).toContain('Croissant');
    expect(printed.office!.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a template job on a route without a profile prints as 80 mm ESC/POS', async () => {
    await createTemplate(server, token, { name: 'plain' });
    const agent = await agentWith('plain-route');
    await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'plain-route', template: 'plain', data: receiptData },
    });
    const claimed = await agent.next();
    expect(claimed.body.data.content_type).toBe('application/vnd.escpos');
  });

  it('cancel, retry and idempotency keys hold for template jobs', async () => {
    await createTemplate(server, token, { name: 'guarantees' });
    const agent = await agentWith('guarantees', { language: 'text', width_mm: 58 });
    const body = { route: 'guarantees', template: 'guarantees', data: receiptData };
    const headers = { 'idempotency-key': `tpl-${kind}-1` };
    const first = await server.request('POST', '/printing/jobs', { token, body, headers });
    const replay = await server.request('POST', '/printing/jobs', { token, body, headers });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.body.data.id).toBe(first.body.data.id);

    const cancelled = await server.request('POST', `/printing/jobs/${first.body.data.id}/cancel`, {
      token,
    });
    expect(cancelled.body.data.status).toBe('cancelled');
    const retried = await server.request('POST', `/printing/jobs/${first.body.data.id}/retry`, {
      token,
    });
    expect(retried.body.data.status).toBe('queued');
    const claimed = await agent.next();
    expect(claimed.body.data.id).toBe(first.body.data.id);
    expect(claimed.body.data.content_type).toBe('text/plain');
    expect(Buffer.from(claimed.body.data.document.content_base64, 'base64').toString()).toContain(
      'Croissant',
    );
  });

  it('a job that cannot render for its printer fails with template_render_failed', async () => {
    await createTemplate(server, token, {
      name: 'shelf-label',
      kind: 'label',
      source: '^XA^FO20,20^FD{{ name }}^FS^XZ',
    });
    // Queued while the route printed labels; its profile changed to a receipt printer's
    // before the claim (a label to a receipt-only route is refused at the door).
    const agent = await agentWith('receipt-only', { language: 'zpl', width_mm: 50 });
    const job = await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'receipt-only', template: 'shelf-label', data: { name: 'Tea' } },
    });
    expect(job.status).toBe(201);
    const put = await agent.call('PUT', '/printing/routes', {
      routes: [
        { name: 'receipt-only', printer: 'PRINTER', profile: { language: 'escpos', width_mm: 80 } },
      ],
    });
    expect(put.status).toBe(200);
    const claimed = await agent.next();
    expect(claimed.status).toBe(204);
    const failed = await server.request('GET', `/printing/jobs/${job.body.data.id}`, { token });
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      error: { code: 'template_render_failed' },
    });
  });

  it('data past the limits fails its job at the claim with the reason; its preview is a 422 at once', async () => {
    const template = await createTemplate(server, token, {
      name: 'counted',
      source: '{% for i in (1..count) %}x{% endfor %}',
    });
    const agent = await agentWith('counted-receipts', { language: 'escpos', width_mm: 80 });
    const data = { count: 1_000_000_000 };
    const job = await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'counted-receipts', template: 'counted', data },
    });
    expect(job.status).toBe(201);
    expect((await agent.next()).status).toBe(204);
    const failed = await server.request('GET', `/printing/jobs/${job.body.data.id}`, { token });
    expect(failed.body.data.status).toBe('failed');
    expect(failed.body.data.error.code).toBe('template_render_failed');
    expect(failed.body.data.error.message).toMatch(/limit/i);
    const preview = await server.request('POST', `/printing/templates/${template.id}/preview`, {
      token,
      body: { data, format: 'raw' },
    });
    expect(preview.status).toBe(422);
    expect(preview.body.errors.data[0]).toMatch(/limit/i);
  });

  it('previews a template: PNG 576 dots wide, SVG, PDF, text and raw', async () => {
    const template = await createTemplate(server, token, {
      name: 'preview',
      sample_data: receiptData,
    });
    const path = `/printing/templates/${template.id}/preview`;
    const png = await fetchBytes(server, 'POST', path, token, { format: 'png' });
    expect(png.status).toBe(200);
    expect(png.contentType).toBe('image/png');
    expect(png.bytes.readUInt32BE(16)).toBe(576);
    const svg = await fetchBytes(server, 'POST', path, token, { format: 'svg' });
    expect(svg.contentType).toBe('image/svg+xml');
    const pdf = await fetchBytes(server, 'POST', path, token, {
      format: 'pdf',
      profile: { language: 'pdf', width_mm: 'a4' },
    });
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await fetchBytes(server, 'POST', path, token, {
      format: 'text',
      data: { ...receiptData, items: [{ name: 'Tea', price: 3 }] },
      profile: { language: 'text', width_mm: 58 },
    });
    expect(text.bytes.toString()).toContain('Tea');
    const raw = await fetchBytes(server, 'POST', path, token, {
      format: 'raw',
      profile: { language: 'starprnt', width_mm: 80 },
    });
    expect(raw.contentType).toBe('application/vnd.star.starprnt');
  });

  it("previews a label as a PNG of its ZPL, and a label job's preview too, for the label printer", async () => {
    const template = await createTemplate(server, token, {
      name: 'price-label',
      kind: 'label',
      source: '^XA^LL200^FO40,40^GB120,60,60^FS^FO40,120^A0N,40,40^FD{{ name }}^FS^XZ',
      sample_data: { name: 'Tea' },
    });
    const preview = await fetchBytes(
      server,
      'POST',
      `/printing/templates/${template.id}/preview`,
      token,
      { format: 'png', profile: { language: 'zpl', width_mm: 50, dpi: 203 } },
    );
    expect(preview.status).toBe(200);
    expect(preview.contentType).toBe('image/png');
    const drawn = greyOf(preview.bytes);
    expect([drawn.width, drawn.height]).toEqual([400, 200]);
    expect(darkIn(drawn, 42, 42, 158, 98)).toBe(116 * 56); // the ^GB box
    expect(darkIn(drawn, 40, 120, 400, 160)).toBeGreaterThan(100); // "Tea"
    expect(darkIn(drawn, 200, 0, 400, 110)).toBe(0);

    const agent = await agentWith('labels', { language: 'zpl', width_mm: 60, dpi: 300 });
    const job = await server.request('POST', '/printing/jobs', {
      token,
      body: { route: 'labels', template: 'price-label', data: { name: 'Coffee' } },
    });
    expect(job.status).toBe(201);
    const jobPath = `/printing/jobs/${job.body.data.id}/preview?format=png`;
    // Before its claim: a 50 mm label at 203 dpi, as for any preview without a label printer.
    const before = await fetchBytes(server, 'GET', jobPath, token);
    expect(before.status).toBe(200);
    expect(greyOf(before.bytes).width).toBe(400);
    const claimed = await agent.next();
    expect(claimed.body.data.content_type).toBe('application/vnd.zebra.zpl');
    const after = await fetchBytes(server, 'GET', jobPath, token);
    expect(after.contentType).toBe('image/png');
    expect(greyOf(after.bytes).width).toBe(709); // 60 mm at 300 dpi
  });
});
