import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';
import { readStarBarcode } from './code-commands.ts';
import { createTemplate, fetchBytes, startTemplateShop } from './helpers.ts';

/**
 * Barcode data stays data, end to end on both databases: an order reference a web-shop
 * customer typed with RS, BEL and `ESC d 2` in it (on a StarPRNT printer RS ended a Code 39
 * and the rest opened the drawer and cut) is a 422 when the job is created and when it is
 * previewed, naming the data's path; a barcode the template puts together where the check
 * at creation cannot see it fails its job at the claim with `template_render_failed`; a
 * label's ZPL barcode is checked the same way; a reference the symbology takes prints.
 */
const typed = 'A1042\x1e\x07\x1bd2';

describe.each(databaseKinds)('barcode data on %s', (kind) => {
  let server: TestServer;
  let company: number;
  let token: string;
  let star: TestAgent;
  beforeAll(async () => {
    ({ server, company, token } = await startTemplateShop(kind, 'Barcode shop'));
    star = await registerAgent(server, company, []);
    const put = await star.call('PUT', '/printing/routes', {
      routes: [
        { name: 'star', printer: 'TSP100', profile: { language: 'starprnt', width_mm: 80 } },
        // A label prints on a label printer only: a label job to `star` is refused at once.
        { name: 'shelf', printer: 'ZD421', profile: { language: 'zpl', width_mm: 50 } },
      ],
    });
    expect(put.status).toBe(200);
    await createTemplate(server, token, {
      name: 'pickup',
      source:
        'Order {{ order.reference }}\n{code:{{ order.reference }}; option:code39,2,72,hri}\n=',
    });
  });
  afterAll(() => server.close());

  const postJob = (template: string, data: unknown, route = 'star') =>
    server.request('POST', '/printing/jobs', { token, body: { route, template, data } });

  it('a job whose barcode would carry RS BEL ESC d 2 is a 422 naming the path; nothing is queued', async () => {
    const answer = await postJob('pickup', { order: { reference: typed } });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['data.order.reference']);
    expect(answer.body.errors['data.order.reference'][0]).toContain(
      'U+001E is not one of its characters',
    );
    expect((await star.next()).status).toBe(204);
  });

  it('its preview is the same 422, in every format', async () => {
    const list = await server.request('GET', '/printing/templates?per_page=100', { token });
    const { id } = list.body.data.find((t: { name: string }) => t.name === 'pickup');
    for (const format of ['raw', 'png', 'text']) {
      const preview = await server.request('POST', `/printing/templates/${id}/preview`, {
        token,
        body: { format, profile: { language: 'starprnt' }, data: { order: { reference: typed } } },
      });
      expect(preview.status).toBe(422);
      expect(preview.body.errors['data.order.reference'][0]).toContain('U+001E');
    }
  });

  it('a barcode put together where creation cannot see it fails at the claim, with the reason', async () => {
    await createTemplate(server, token, {
      name: 'assembled',
      source: '{{ "{" | raw }}co{{ "de:" | raw }}{{ ref }}; option:code39}',
    });
    const job = await postJob('assembled', { ref: typed });
    expect(job.status).toBe(201);
    expect((await star.next()).status).toBe(204);
    const failed = await server.request('GET', `/printing/jobs/${job.body.data.id}`, { token });
    expect(failed.body.data).toMatchObject({
      status: 'failed',
      error: { code: 'template_render_failed' },
    });
    expect(failed.body.data.error.message).toContain('U+001E is not one of its characters');
  });

  it("a label's ZPL barcode is checked as a receipt's", async () => {
    await createTemplate(server, token, {
      name: 'bin-label',
      kind: 'label',
      source: '^XA^FO20,20^BY2^B3N,N,80,Y,N^FD{{ bin }}^FS^FO20,120^FD{{ bin }}^FS^XZ',
    });
    const refused = await postJob('bin-label', { bin: 'BIN-7\x1e' }, 'shelf');
    expect(refused.status).toBe(422);
    expect(refused.body.errors['data.bin'][0]).toContain('U+001E');
    // é is two bytes in the field (UTF-8): the path is found all the same.
    const accented = await postJob('bin-label', { shelf: 'A', bin: 'BIN-é' }, 'shelf');
    expect(accented.status).toBe(422);
    expect(Object.keys(accented.body.errors)).toEqual(['data.bin']);
    const printed = await postJob('bin-label', { bin: 'BIN-7' }, 'shelf');
    expect(printed.status).toBe(201);
    // The label printer takes it, its barcode whole.
    const claimed = await star.next();
    expect(claimed.status).toBe(200);
    expect(
      Buffer.from(claimed.body.data.document.content_base64, 'base64').toString('latin1'),
    ).toContain('^FDBIN-7^FS');
    const confirmed = await star.call('POST', `/printing/jobs/${printed.body.data.id}/confirm`, {
      printer: 'ZD421',
    });
    expect(confirmed.status).toBe(200);
  });

  it('a reference the symbology takes prints as one barcode, on StarPRNT', async () => {
    const job = await postJob('pickup', { order: { reference: 'A1042-7' } });
    expect(job.status).toBe(201);
    const claimed = await star.next();
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.id).toBe(job.body.data.id);
    const bytes = Buffer.from(claimed.body.data.document.content_base64, 'base64');
    const at = bytes.indexOf('\x1bb');
    expect(readStarBarcode(bytes, at).data.toString('latin1')).toBe('A1042-7');
    expect(bytes.indexOf('\x1bb', at + 1)).toBe(-1);
    const raw = await fetchBytes(
      server,
      'GET',
      `/printing/jobs/${job.body.data.id}/preview?format=raw`,
      token,
    );
    expect(raw.bytes).toEqual(bytes);
  });

  it('a template whose own barcode is outside its symbology is refused when saved', async () => {
    const answer = await server.request('POST', '/printing/templates', {
      token,
      body: { name: 'fixed', kind: 'receipt', source: '{code:a_b; option:code39}' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.source[0]).toContain('U+0061');
    const sample = await server.request('POST', '/printing/templates', {
      token,
      body: {
        name: 'sampled',
        kind: 'receipt',
        source: '{code:{{ ref }}; option:itf}',
        sample_data: { ref: '123' },
      },
    });
    expect(sample.status).toBe(422);
    expect(sample.body.errors.sample_data[0]).toContain('an even number of digits');
  });

  it('a template that puts data in a {command:…} property is refused when saved, unless | raw', async () => {
    // A command property sends its value to the printer as it is: BEL in the data would
    // open the drawer, escaping or not.
    for (const source of ['{command:{{ ref }}}', 'Order\n{code:1042; x: {{ ref }} }']) {
      const answer = await server.request('POST', '/printing/templates', {
        token,
        body: { name: 'commands', kind: 'receipt', source },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.source[0]).toContain('{command:…} property');
    }
    await createTemplate(server, token, { name: 'chosen', source: '{command:{{ kick | raw }}}' });
  });
});
