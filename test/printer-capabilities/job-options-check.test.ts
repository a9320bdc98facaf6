import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrinterCapabilities } from '../../shared/printer-capabilities.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, sampleText } from '../printing/helpers.ts';

/**
 * `POST /printing/jobs` checks the job's options against the printers of the route's online
 * agents, as each agent reported them (docs/printing.md, "Printer capabilities"); one rule a
 * test, on both databases.
 */
describe.each(databaseKinds)('options checked at the door (%s)', (kind) => {
  let server: TestServer;
  let company: number;
  let integrator: string;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    company = await server.createCompany();
    integrator = await server.token(company, ['printing.jobs.create']);
  });
  afterAll(() => server.close());

  /** An agent serving `route` on a printer of these capabilities (none: it could not tell). */
  async function agentWith(route: string, capabilities?: PrinterCapabilities) {
    const agent = await registerAgent(server, company, []);
    const beat = await agent.call('POST', '/printing/heartbeat', {
      printers: [{ name: 'P', ...(capabilities && { capabilities }) }],
    });
    expect(beat.status).toBe(200);
    await agent.call('PUT', '/printing/routes', { routes: [{ name: route, printer: 'P' }] });
    return agent;
  }

  const post = (route: string, extra: Record<string, unknown>) =>
    server.request('POST', '/printing/jobs', {
      token: integrator,
      body: { route, content_type: 'text/plain', content_base64: sampleText, ...extra },
    });

  it('accepts what one of the printers can do, though another cannot', async () => {
    await agentWith('mixed', { duplex: ['none'] });
    await agentWith('mixed', { duplex: ['none', 'long-edge'] });
    expect((await post('mixed', { options: { duplex: 'long-edge' } })).status).toBe(201);
  });

  it('refuses a paper size no printer has, naming the sizes they have', async () => {
    await agentWith('letters', { paper: ['letter', 'legal'] });
    const answer = await post('letters', { options: { paper: 'a4' } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual({
      'options.paper': [
        'No printer serving route letters can print paper a4; they support paper: letter, legal.',
      ],
    });
  });

  it('refuses colour on monochrome printers', async () => {
    await agentWith('mono', { color: ['monochrome'] });
    const answer = await post('mono', { options: { color: 'color' } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors['options.color'][0]).toContain('they support color: monochrome');
  });

  it('refuses more copies than any printer takes', async () => {
    await agentWith('few', { copies: 5 });
    const answer = await post('few', { copies: 6 });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.copies[0]).toBe(
      'No printer serving route few prints 6 copies of a job; they print at most 5.',
    );
    expect((await post('few', { copies: 5 })).status).toBe(201);
  });

  it('takes a roll width the receipt printer has, and refuses another', async () => {
    await agentWith('rolls', { paper: ['roll-80mm'], roll_width_mm: 80 });
    expect((await post('rolls', { options: { paper: 'roll-80mm' } })).status).toBe(201);
    const answer = await post('rolls', { options: { paper: 'roll-58mm' } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors['options.paper'][0]).toContain('they support paper: roll-80mm');
  });

  it('checks nothing a printer did not report (absent means unchecked)', async () => {
    await agentWith('unknown');
    expect((await post('unknown', { options: { duplex: 'short-edge', paper: 'a3' } })).status).toBe(
      201,
    );
  });

  it('needs one printer that can do all the options together', async () => {
    await agentWith('split', { paper: ['a3'], duplex: ['none'] });
    await agentWith('split', { paper: ['a4'], duplex: ['none', 'long-edge'] });
    const answer = await post('split', { options: { paper: 'a3', duplex: 'long-edge' } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.options[0]).toBe(
      'No single printer serving route split supports these options together (paper: a3, duplex: long-edge).',
    );
  });

  it('ignores the options of raw content, which the printer takes as it is', async () => {
    await agentWith('labels', { paper: ['roll-102mm'], roll_width_mm: 102, duplex: ['none'] });
    const answer = await post('labels', {
      content_type: 'application/vnd.zebra.zpl',
      content_base64: Buffer.from('^XA^XZ').toString('base64'),
      options: { duplex: 'long-edge' },
    });
    expect(answer.status).toBe(201);
  });

  it('does not check a route whose agents are offline, and queues the job', async () => {
    await agentWith('gone', { duplex: ['none'] });
    server.clock.advance(3600_000);
    const answer = await post('gone', { options: { duplex: 'long-edge' } });
    expect(answer.status).toBe(201);
    expect(answer.body.data.route_online).toBe(false);
  });
});
