import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  createTemplate,
  fetchBytes,
  receiptData,
  receiptSchema,
  startTemplateShop,
} from './helpers.ts';

/**
 * Every refusal of templates and template jobs, on both databases: Liquid errors with their
 * line and column, schemas and data, the two forms of a job, the limits that keep a template
 * from hanging or exhausting the server, and tenancy (another company's template is a 422,
 * never a render).
 */
describe.each(databaseKinds)('template refusals on %s', (kind) => {
  let server: TestServer;
  let company: number;
  let token: string;
  beforeAll(async () => {
    ({ server, company, token } = await startTemplateShop(kind, 'Strict shop'));
    await createTemplate(server, token, { name: 'checked', data_schema: receiptSchema });
  });
  afterAll(() => server.close());

  const postTemplate = (body: Record<string, unknown>) =>
    server.request('POST', '/printing/templates', {
      token,
      body: { name: 'bad', kind: 'receipt', source: 'x', ...body },
    });
  const postJob = (body: Record<string, unknown>) =>
    server.request('POST', '/printing/jobs', { token, body: { route: 'receipts', ...body } });

  it.each([
    ['a tag left open', 'Hello\n{% for item in items %}\n{{ item }}', 'line 2, column 1'],
    ['an unknown filter', 'Hello\n  {{ name | shout }}', 'line 2, column 3'],
    ['an output left open', '{{ name', 'line 1, column 1'],
  ])(
    'a Liquid error (%s) is a 422 on source naming its line and column',
    async (_, source, where) => {
      const answer = await postTemplate({ source });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.source[0]).toContain(where);
    },
  );

  it('a data_schema that is no JSON Schema, or sample_data that does not match it, is a 422', async () => {
    const schema = await postTemplate({ data_schema: { type: 'nothing' } });
    expect(schema.status).toBe(422);
    expect(schema.body.errors).toHaveProperty('data_schema');
    const sample = await postTemplate({ data_schema: receiptSchema, sample_data: { items: [] } });
    expect(sample.status).toBe(422);
    expect(sample.body.errors).toHaveProperty(['sample_data.order']);
  });

  it('a name taken in the company is a 422; a bad name or kind too', async () => {
    const taken = await postTemplate({ name: 'checked' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.name[0]).toContain('already been taken');
    expect((await postTemplate({ name: 'Not A Name' })).status).toBe(422);
    expect((await postTemplate({ kind: 'poster' })).status).toBe(422);
  });

  it.each([
    [
      'both forms',
      { content_type: 'text/plain', content_base64: 'eA==', template: 'checked', data: {} },
      'template',
    ],
    ['neither form', {}, 'content_type'],
    ['a template without data', { template: 'checked' }, 'data'],
    ['bytes without a content type', { content_base64: 'eA==' }, 'content_type'],
  ])('a job with %s is a 422', async (_, body, field) => {
    const answer = await postJob(body);
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toHaveProperty([field]);
  });

  it('data that does not match the data_schema is a 422 naming the path of each problem', async () => {
    const answer = await postJob({
      template: 'checked',
      data: { items: [{ name: 'Tea', price: 'three' }, { price: 1 }] },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual([
      'data.items.0.price',
      'data.items.1.name',
      'data.order',
    ]);
  });

  it.each([
    ['a loop over 10^9 items', '{% for i in (1..1000000000) %}x{% endfor %}'],
    [
      'nested loops of 10^8 turns',
      '{% for i in (1..10000) %}{% for j in (1..10000) %}x{% endfor %}{% endfor %}',
    ],
    [
      'a string doubled to 100+ MB',
      '{% assign s = "xxxxxxxx" %}{% for i in (1..27) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    ],
  ])(
    '%s is a 422 when the template is saved, not a hung or exhausted server',
    async (_, source) => {
      const answer = await postTemplate({ name: `limit-${source.length}`, source });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.source[0]).toMatch(
        /^The template could not be rendered without data: /,
      );
      const withSample = await postTemplate({ name: 'sampled', source, sample_data: {} });
      expect(withSample.status).toBe(422);
      expect(withSample.body.errors).toHaveProperty('sample_data');
    },
  );

  it("another company's template is a 422 on template, by name or id, and never renders", async () => {
    const other = await server.createCompany('Neighbour');
    const theirs = await server.token(other, ['printing.templates.write', 'printing.jobs.create']);
    const template = await createTemplate(server, theirs, { name: 'secret' });
    for (const ref of ['secret', template.id]) {
      const answer = await postJob({ template: ref, data: receiptData });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.template[0]).toBe('The selected template is invalid.');
    }
    const preview = await fetchBytes(
      server,
      'POST',
      `/printing/templates/${template.id}/preview`,
      token,
      {
        data: receiptData,
      },
    );
    expect(preview.status).toBe(404);
    const read = await server.request('GET', `/printing/templates/${template.id}`, { token });
    expect(read.status).toBe(404);
  });

  it('a label previews as png, raw or text (svg, pdf: a 422 on format); a preview without data nor sample data is a 422', async () => {
    const label = await createTemplate(server, token, {
      name: 'label',
      kind: 'label',
      source: '^XA^FD{{ name }}^FS^XZ',
    });
    for (const format of ['svg', 'pdf']) {
      const refused = await server.request('POST', `/printing/templates/${label.id}/preview`, {
        token,
        body: { format, data: { name: 'x' } },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.format[0]).toMatch(/png.*raw.*text/);
    }
    const noData = await server.request('POST', `/printing/templates/${label.id}/preview`, {
      token,
      body: { format: 'raw', profile: { language: 'zpl' } },
    });
    expect(noData.status).toBe(422);
    expect(noData.body.errors).toHaveProperty('data');
    const tooLong = await server.request('POST', `/printing/templates/${label.id}/preview`, {
      token,
      body: { format: 'png', data: { name: 'x' }, source: '^XA^LL9000^FD{{ name }}^FS^XZ' },
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors.source[0]).toMatch(/at most 300 mm/);
  });

  it('a bad profile is a 422 on its field', async () => {
    const agentToken = await server.token(company, ['printing.agent']);
    const answer = await server.request('PUT', '/printing/routes', {
      token: agentToken,
      headers: { 'x-agent-id': '00000000-0000-4000-8000-000000000001' },
      body: {
        routes: [{ name: 'r', printer: 'P', profile: { language: 'escpos', width_mm: 75 } }],
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toHaveProperty(['routes.0.profile.width_mm']);
  });

  it('needs printing.templates.read to read and printing.templates.write to write', async () => {
    const reader = await server.token(company, ['printing.templates.read']);
    expect((await server.request('GET', '/printing/templates', { token: reader })).status).toBe(
      200,
    );
    const write = await server.request('POST', '/printing/templates', {
      token: reader,
      body: { name: 'nope', kind: 'receipt', source: 'x' },
    });
    expect(write.status).toBe(403);
    const jobsOnly = await server.token(company, ['printing.jobs.read']);
    expect((await server.request('GET', '/printing/templates', { token: jobsOnly })).status).toBe(
      403,
    );
  });
});
