import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent } from '../printing/helpers.ts';
import { createTemplate, receiptData } from './helpers.ts';

/**
 * The capabilities check at the door, for templates (docs/printing.md, "Profiles that fit
 * their printer"): `POST /printing/jobs` refuses a template kind no printer of the route can
 * print, naming what the route prints, on both databases.
 */
describe.each(databaseKinds)('a template the route cannot print, on %s', (kind) => {
  let server: TestServer;
  let company: number;
  let token: string;
  beforeAll(async () => {
    server = await startTestServerOn(kind);
    company = await server.createCompany('Label shop');
    token = await server.token(company, [
      'printing.templates.write',
      'printing.jobs.create',
      'printing.jobs.read',
    ]);
    await createTemplate(server, token, { name: 'receipt' });
    await createTemplate(server, token, {
      name: 'shelf-label',
      kind: 'label',
      source: '^XA^FO20,20^FD{{ name }}^FS^XZ',
    });
    const receipts = await registerAgent(server, company, []);
    await receipts.call('PUT', '/printing/routes', {
      routes: [
        { name: 'till', printer: 'EPSON', profile: { language: 'escpos', width_mm: 80 } },
        { name: 'plain', printer: 'EPSON' },
        { name: 'mixed', printer: 'EPSON', profile: { language: 'escpos', width_mm: 80 } },
      ],
    });
    const labels = await registerAgent(server, company, []);
    await labels.call('PUT', '/printing/routes', {
      routes: [{ name: 'mixed', printer: 'ZEBRA', profile: { language: 'zpl', width_mm: 50 } }],
    });
  });
  afterAll(() => server.close());

  const postJob = (route: string, template: string, data: object) =>
    server.request('POST', '/printing/jobs', { token, body: { route, template, data } });

  it.each([
    ['till', 'ESC/POS'],
    ['plain', 'ESC/POS'],
  ])(
    'a label template to route %s, whose printers have receipt profiles, is a 422 naming what it prints',
    async (route, prints) => {
      const answer = await postJob(route, 'shelf-label', { name: 'Tea' });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.template).toEqual([
        `No printer serving route ${route} can print a label template: the route prints ${prints} (its printers' profiles); a label prints on ZPL only.`,
      ]);
      const history = await server.request('GET', `/printing/history?route=${route}`, { token });
      expect(history.body.data).toEqual([]);
    },
  );

  it('a label to a route one of whose printers prints ZPL is queued; a receipt anywhere', async () => {
    expect((await postJob('mixed', 'shelf-label', { name: 'Tea' })).status).toBe(201);
    expect((await postJob('till', 'receipt', receiptData)).status).toBe(201);
  });

  it('a route nobody serves is not checked: the job waits for an agent', async () => {
    const answer = await postJob('nobody', 'shelf-label', { name: 'Tea' });
    expect(answer.status).toBe(201);
    expect(answer.body.data.wait_reason.code).toBe('no_agent_for_route');
  });
});
