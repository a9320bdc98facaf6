import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { createTemplate, fetchBytes, receiptData } from './helpers.ts';

/**
 * A preview of a draft source (the console's live preview while someone edits): rendered in
 * place of the saved source, nothing saved; a Liquid error in it is a 422 with line and
 * column; only a caller who may write templates may render a draft.
 */
describe.each(databaseKinds)('a draft preview on %s', (kind) => {
  let server: TestServer;
  let writer: string;
  let reader: string;
  let id: number;
  beforeAll(async () => {
    server = await startTestServerOn(kind);
    const company = await server.createCompany('Draft shop');
    writer = await server.token(company, ['printing.templates.read', 'printing.templates.write']);
    reader = await server.token(company, ['printing.templates.read']);
    id = (await createTemplate(server, writer, { sample_data: receiptData })).id;
  });
  afterAll(() => server.close());

  it('renders the draft, and saves nothing', async () => {
    const draft = await fetchBytes(server, 'POST', `/printing/templates/${id}/preview`, writer, {
      format: 'text',
      source: 'Draft for {{ shop }}',
    });
    expect(draft.status).toBe(200);
    expect(draft.bytes.toString()).toContain('Draft for Demo Shop');
    const read = await server.request('GET', `/printing/templates/${id}`, { token: writer });
    expect(read.body.data.version).toBe(1);
    expect(read.body.data.source).not.toContain('Draft');
  });

  it('names the line and column of a Liquid error in the draft', async () => {
    const answer = await server.request('POST', `/printing/templates/${id}/preview`, {
      token: writer,
      body: { format: 'svg', source: 'Hello\n  {{ shop | shout }}' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.source[0]).toMatch(/line 2, column 3/);
  });

  it('refuses a draft to a caller who may only read templates', async () => {
    const answer = await server.request('POST', `/printing/templates/${id}/preview`, {
      token: reader,
      body: { format: 'text', source: 'x' },
    });
    expect(answer.status).toBe(403);
    const saved = await fetchBytes(server, 'POST', `/printing/templates/${id}/preview`, reader, {
      format: 'text',
    });
    expect(saved.status).toBe(200);
  });
});
