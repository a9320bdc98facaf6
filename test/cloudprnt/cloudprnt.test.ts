import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers/instances.ts';
import { count } from '../helpers/pg-sent.ts';
import { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import { shopdesk } from '../helpers/shopdesk-cli.ts';
import { cliDatabase, expectWritesNothing, printerCompany, starPrinter } from './helpers.ts';

/**
 * A Star CloudPRNT printer as a member of its company (docs/cloudprnt.md), end to end: enrolled
 * with `shopdesk cloudprnt add`, polling, fetching and confirming over HTTP as Star's protocol
 * reference says (test/helpers/printer-simulators/cloudprnt.ts), on SQLite and on PostgreSQL
 * with two instances, its requests spread over both.
 */
describe.each(dialects)('CloudPRNT printers (%s)', (dialect) => {
  const shop = printerCompany(dialect);

  const dbArgs = () => cliDatabase(shop.instances);

  /** A printer added with the command line on a route of its own, polling instance one. */
  async function addPrinter(name?: string) {
    const server = shop.instances.one.url;
    const { route, values } = await shop.addPrinter('cloudprnt', { name, server });
    return { route, printer: starPrinter(values), values };
  }

  const { job, queue, cycles } = shop;

  it('add prints the three settings, and the printer lists as an agent of its route', async () => {
    const { route, printer, values } = await addPrinter('Kitchen');
    expect(values.URL).toBe(`${shop.instances.one.url}/api/v1/cloudprnt`);
    expect(values.USER).toMatch(/^cp-[0-9a-f]{12}$/);
    expect(values.PASSWORD!.length).toBeGreaterThanOrEqual(32);
    await cycles(printer, 2);
    const agents = await shop.instances.two.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
    const listed = agents.body.data.find((agent: { name: string }) => agent.name === 'Kitchen');
    expect(listed).toMatchObject({
      platform: 'cloudprnt',
      hostname: 'Star mC-Print3',
      online: true,
    });
    expect(listed.routes.map((r: { name: string }) => r.name)).toEqual([route]);
    expect(listed.printers[0]).toMatchObject({ state: 'idle', reasons: [] });
  });

  it('cloudprnt revoke refuses the printer at its next poll (401); an unknown company is a usage error', async () => {
    const { printer } = await addPrinter('Revoked');
    await printer.poll();
    const agents = await shop.instances.two.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
    const agent = agents.body.data.find((a: { name: string }) => a.name === 'Revoked');
    const revoke = await shopdesk(
      'cloudprnt',
      'revoke',
      agent.id,
      '--company',
      String(shop.company),
      ...dbArgs(),
    );
    expect(revoke.stdout.trim()).toBe(`revoked CloudPRNT printer ${agent.id}`);
    await expect(printer.poll()).rejects.toThrow('poll answered 401');
    const again = await shopdesk(
      'cloudprnt',
      'revoke',
      agent.id,
      '--company',
      String(shop.company),
      ...dbArgs(),
    );
    expect(again.code).toBe(2);
    const unknown = await shopdesk(
      'cloudprnt',
      'add',
      '--company',
      '999999',
      '--route',
      'x',
      ...dbArgs(),
    );
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('no company with id 999999');
  });

  it('POST /cloudprnt/printers (IT, printing.agents.write) gives the same three settings; …/revoke ends them', async () => {
    const itToken = await shop.instances.two.token(shop.company, ['printing.agents.write']);
    const answer = await shop.instances.two.request('POST', '/cloudprnt/printers', {
      token: itToken,
      body: { route: 'cloudprnt-api', name: 'Bar' },
    });
    expect(answer.status).toBe(201);
    const { url, user, password, agent_id } = answer.body.data;
    expect(url).toBe(`${shop.instances.two.api}/cloudprnt`);
    expect(answer.headers.get('location')).toBe(
      `${shop.instances.two.api}/printing/agents/${agent_id}`,
    );
    const printer = new CloudPrntPrinter({ url, user, password });
    expect((await printer.poll()).jobReady).toBe(false);
    const revokePath = `/cloudprnt/printers/${agent_id}/revoke`;
    const revoked = await shop.instances.one.request('POST', revokePath, { token: itToken });
    expect(revoked.status).toBe(204);
    await expect(printer.poll()).rejects.toThrow('poll answered 401');
    expect((await shop.instances.two.request('POST', revokePath, { token: itToken })).status).toBe(
      404,
    );
    const reader = await shop.instances.two.request('POST', '/cloudprnt/printers', {
      token: shop.integrator,
      body: { route: 'cloudprnt-api' },
    });
    expect(reader.status).toBe(403);
  });

  it('asks the client actions once, and stops asking once answered', async () => {
    const { printer } = await addPrinter();
    const first = await printer.poll();
    expect((first.clientAction as { request: string }[]).map((ask) => ask.request)).toEqual([
      'ClientType',
      'Encodings',
      'GetPollInterval',
    ]);
    await printer.poll();
    expect(printer.lastAnswer?.clientAction).toBeUndefined();
  });

  it('refuses a wrong password with 401 and a Basic challenge', async () => {
    const { values } = await addPrinter();
    const wrong = starPrinter(values, { password: 'x' });
    await expect(wrong.poll()).rejects.toThrow('poll answered 401');
  });

  it('prints a job once: a poll says ready, the GET claims it, the DELETE confirms it', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    await cycles(printer, 3);
    expect(printer.printed.map((p) => p.bytes.toString())).toEqual(['Hello, printer\n']);
    expect(printer.printed[0]!.mediaType).toBe('text/plain');
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 1 });
  });

  it('a repeated GET gets the same job and claims nothing; a repeated DELETE changes nothing', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    await printer.poll();
    await printer.poll();
    const first = await printer
      .through(`${shop.instances.one.api}/cloudprnt`)
      .fetchJob('text/plain', null);
    const again = await printer
      .through(`${shop.instances.two.api}/cloudprnt`)
      .fetchJob('text/plain', null);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(await job(queued.id)).toMatchObject({ status: 'claimed', attempts: 1 });
    expect((await printer.poll()).jobReady).toBe(false);
    // As older firmware does, no token on the GETs nor on the DELETE, which confirms the claim
    // the printer holds (the token's own rules: job-token.test.ts).
    expect(await printer.confirm(null, '200 OK')).toBe(200);
    const printed = await job(queued.id);
    expect(
      await printer.through(`${shop.instances.one.api}/cloudprnt`).confirm(null, '200 OK'),
    ).toBe(200);
    expect(await job(queued.id)).toEqual(printed);
  });

  it.each([
    ['application/vnd.zebra.zpl', '^XA^FDhello^FS^XZ'],
    ['application/vnd.escpos', '\x1b@hello\n'],
    ['application/pdf', '%PDF-1.4\n'],
  ])(
    'refuses a %s job on its route with 422, naming what the route prints',
    async (type, bytes) => {
      const { route, printer } = await addPrinter();
      await cycles(printer, 2);
      const answer = await shop.instances.two.request('POST', '/printing/jobs', {
        token: shop.integrator,
        body: { route, content_type: type, content_base64: Buffer.from(bytes).toString('base64') },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors.content_type).toEqual([
        `No printer serving route ${route} takes ${type}: the route prints application/vnd.star.starprnt, text/plain.`,
      ]);
      expect((await queue(route)).status).toBe('queued');
    },
  );

  it('out of paper: jobs wait with the reason and no job is ready; once refilled, they print', async () => {
    const { route, printer } = await addPrinter();
    printer.condition.paperEnd = true;
    await cycles(printer, 1);
    const queued = await queue(route);
    await cycles(printer, 2);
    expect(printer.lastAnswer?.jobReady).toBe(false);
    expect(printer.wire.filter((event) => event.startsWith('GET'))).toEqual([]);
    expect((await job(queued.id)).wait_reason).toMatchObject({ code: 'printer_out_of_paper' });
    printer.condition.paperEnd = false;
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed' });
  });

  it('cover open after the GET: the claim is given back with the reason, then printed once', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.paperOutAfterGet = true;
    await cycles(printer, 2);
    expect(printer.printed).toEqual([]);
    const waiting = await job(queued.id);
    expect(waiting).toMatchObject({
      status: 'queued',
      wait_reason: { code: 'printer_out_of_paper' },
    });
    printer.condition.paperEnd = false;
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 2 });
  });

  it('a DELETE the network lost is sent again and confirms the job once', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.dropNextDelete = true;
    await cycles(printer, 1);
    expect(await job(queued.id)).toMatchObject({ status: 'claimed' });
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 1 });
  });

  it('a GET whose answer the network lost (DELETE 520) gives the job back; it prints once', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.cutNextGet = true;
    await cycles(printer, 1);
    expect(printer.printed).toEqual([]);
    expect(await job(queued.id)).toMatchObject({ status: 'queued', wait_reason: null });
    await cycles(printer, 1);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 2 });
  });

  it('a printer that never confirms keeps its claim until the lease ends, then the job fails (never printed twice)', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.neverConfirm = true;
    await cycles(printer, 3);
    expect(printer.printed).toHaveLength(1);
    // It goes on polling, not printing: its polls keep the printer seen, not the claim.
    const lease = shop.instances.one.app.services.config.leaseSeconds * 1000;
    shop.advanceClocks(lease / 2);
    await cycles(printer, 2);
    shop.advanceClocks(lease / 2 + 1000);
    await shop.instances.one.app.services.printing.sweep();
    expect(await job(queued.id)).toMatchObject({
      status: 'failed',
      error: { code: 'lease_expired' },
    });
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
  });

  it('a poll with nothing to print and nothing new writes nothing', async () => {
    const { printer } = await addPrinter();
    await cycles(printer, 3);
    const server = shop.instances.two;
    const poll = () => printer.through(`${server.api}/cloudprnt`).poll();
    const sent = await expectWritesNothing(dialect, server, poll);
    if (dialect === 'postgres') expect(count(sent, /cloudprnt_printers/)).toBe(1);
    expect(printer.lastAnswer).toEqual({ jobReady: false });
  });
});
