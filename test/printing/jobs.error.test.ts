import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { integratorToken, registerAgent, sampleText } from './helpers.ts';

describe('POST /printing/jobs refuses bad input with 422', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    const company = await server.createCompany();
    token = await integratorToken(server, company);
  });
  afterAll(() => server.close());

  const valid = { route: 'receipts', content_type: 'text/plain', content_base64: sampleText };

  it.each<[string, Record<string, unknown>, string]>([
    ['no route', { route: undefined }, 'route'],
    ['a route with capitals', { route: 'Receipts' }, 'route'],
    ['a route of 65 characters', { route: 'a'.repeat(65) }, 'route'],
    ['an unknown content type', { content_type: 'image/png' }, 'content_type'],
    ['no content', { content_base64: undefined }, 'content_base64'],
    ['content that is not base64', { content_base64: 'not base64!' }, 'content_base64'],
    ['content that decodes to nothing', { content_base64: '==' }, 'content_base64'],
    ['0 copies', { copies: 0 }, 'copies'],
    ['100 copies', { copies: 100 }, 'copies'],
    ['priority 10', { priority: 10 }, 'priority'],
    ['priority -1', { priority: -1 }, 'priority'],
    ['an unknown option', { options: { colour: 'red' } }, 'options.colour'],
    ['a bad paper size', { options: { paper: 'a2' } }, 'options.paper'],
    ['a bad page list', { options: { pages: '1-' } }, 'options.pages'],
    ['expires_in 0', { expires_in: 0 }, 'expires_in'],
    ['expires_in over 7 days', { expires_in: 7 * 24 * 3600 + 1 }, 'expires_in'],
    ['a title over 255 characters', { title: 'x'.repeat(256) }, 'title'],
    ['a title with a NUL character', { title: 'Receipt\u0000' }, 'title'],
    [
      'application/pdf content that is not a PDF (a PNG)',
      {
        content_type: 'application/pdf',
        content_base64: Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').toString('base64'),
      },
      'content_base64',
    ],
    [
      'application/pdf content that only starts like one',
      { content_type: 'application/pdf', content_base64: Buffer.from('%PDF').toString('base64') },
      'content_base64',
    ],
  ])('%s', async (_what, change, field) => {
    const answer = await server.request('POST', '/printing/jobs', {
      token,
      body: { ...valid, ...change },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.success).toBe(false);
    expect(Object.keys(answer.body.errors)).toContain(field);
    const history = await server.request('GET', '/printing/history', { token });
    expect(history.body.meta.total).toBe(0);
  });

  it('answers 404 for a job that does not exist or an id that is not one', async () => {
    expect((await server.request('GET', '/printing/jobs/999999', { token })).status).toBe(404);
    expect((await server.request('GET', '/printing/jobs/abc', { token })).status).toBe(404);
    const company = await server.createCompany();
    const agent = await registerAgent(server, company);
    expect((await agent.call('POST', '/printing/jobs/999999/confirm')).status).toBe(404);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const answer = await server.request('POST', '/printing/jobs', {
      token,
      rawBody: 'route=receipts',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.status).toBe(415);
  });

  it('checks only PDFs for a header: ZPL, ESC/POS and text go as they are', async () => {
    for (const [contentType, content] of [
      ['application/pdf', '%PDF-1.7\n%%EOF\n'],
      ['application/vnd.zebra.zpl', 'not ZPL at all'],
      ['application/vnd.escpos', '%PDF- is no ESC/POS'],
      ['text/plain', '\u0000\u0001 binary'],
    ]) {
      const answer = await server.request('POST', '/printing/jobs', {
        token,
        body: {
          ...valid,
          content_type: contentType,
          content_base64: Buffer.from(content!).toString('base64'),
        },
      });
      expect(answer.status, contentType).toBe(201);
    }
  });
});
