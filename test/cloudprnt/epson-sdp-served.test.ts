import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers/instances.ts';
import { EpsonSdpPrinter } from '../helpers/printer-simulators/epson-sdp.ts';
import { createTemplate } from '../templates/helpers.ts';
import { epsonPrinter, expectWritesNothing, printerCompany } from './helpers.ts';

/**
 * An Epson printer on Server Direct Print as a member of its company (docs/cloudprnt.md), end
 * to end: enrolled with `shopdesk cloudprnt add --kind epson`, asking for work with its form
 * POST behind HTTP Digest, printing the ePOS-Print XML it is answered and posting its result,
 * as Epson's manual says (test/helpers/printer-simulators/epson-sdp.ts), on SQLite and on
 * PostgreSQL with two instances, its requests spread over both.
 */
describe.each(dialects)('Epson Server Direct Print (%s)', (dialect) => {
  const shop = printerCompany(dialect);

  /** A printer added with the command line on a route of its own. */
  async function addPrinter(name?: string) {
    const server = shop.instances.one.url;
    const { route, values } = await shop.addPrinter('epson', { kind: 'epson', name, server });
    return { route, printer: epsonPrinter(values), values };
  }

  const { job, queue, cycles } = shop;

  /**
   * The lease runs out while the printer keeps asking for work (its presence written at half
   * the lease): asking extends no lease. Then the sweep.
   */
  async function leaseRunsOutWhileAsking(printer: EpsonSdpPrinter) {
    const { leaseSeconds } = shop.instances.one.app.services.config;
    shop.advanceClocks((leaseSeconds * 1000) / 2);
    await cycles(printer, 1);
    shop.advanceClocks((leaseSeconds * 1000) / 2 + 1000);
    await shop.instances.one.app.services.printing.sweep();
  }

  it('add --kind epson prints the settings; the printer lists as an agent of platform epson-sdp', async () => {
    const { route, printer, values } = await addPrinter('Bar');
    expect(values.URL).toBe(`${shop.instances.one.url}/api/v1/cloudprnt/epson`);
    // WebConfig takes at most 30 letters, digits, `_`, `.` and `-` for each.
    expect(values.USER).toMatch(/^[\w.-]{1,30}$/);
    expect(values.PASSWORD).toMatch(/^[\w.-]{30}$/);
    await cycles(printer, 1);
    expect(printer.wire).toEqual(['GetRequest 200 empty']);
    const agents = await shop.instances.two.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
    const listed = agents.body.data.find((agent: { name: string }) => agent.name === 'Bar');
    expect(listed).toMatchObject({ platform: 'epson-sdp', online: true });
    expect(listed.routes).toMatchObject([{ name: route, profile: { language: 'epos' } }]);
  });

  it('refuses a wrong password, and a request without Digest, with 401 and a Digest challenge', async () => {
    const { values } = await addPrinter();
    const wrong = epsonPrinter(values, { password: 'x' });
    expect((await wrong.post({ ConnectionType: 'GetRequest', ID: values.USER! })).status).toBe(401);
    const bare = await fetch(values.URL!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ConnectionType=GetRequest&ID=',
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(
      /^Digest realm="shopdesk", qop="auth", algorithm=MD5, nonce="[0-9a-f.]+"$/,
    );
  });

  it('POST /cloudprnt/printers with kind epson gives the same settings; …/revoke ends them (401)', async () => {
    const itToken = await shop.instances.two.token(shop.company, ['printing.agents.write']);
    const answer = await shop.instances.two.request('POST', '/cloudprnt/printers', {
      token: itToken,
      body: { route: 'epson-api', name: 'Terrace', kind: 'epson' },
    });
    expect(answer.status).toBe(201);
    const { url, user, password, agent_id } = answer.body.data;
    expect(url).toBe(`${shop.instances.two.api}/cloudprnt/epson`);
    expect(answer.headers.get('location')).toBe(
      `${shop.instances.two.api}/printing/agents/${agent_id}`,
    );
    const printer = new EpsonSdpPrinter({ url, id: user, password });
    expect(await printer.getRequest()).toBeUndefined();
    expect(printer.wire).toEqual(['GetRequest 200 empty']);
    const revoked = await shop.instances.one.request(
      'POST',
      `/cloudprnt/printers/${agent_id}/revoke`,
      {
        token: itToken,
      },
    );
    expect(revoked.status).toBe(204);
    await printer.getRequest();
    expect(printer.wire.at(-1)).toBe('GetRequest 401');
  });

  it('takes a form only: JSON is 415', async () => {
    const { values } = await addPrinter();
    const json = await fetch(values.URL!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ConnectionType: 'GetRequest' }),
    });
    expect(json.status).toBe(415);
  });

  it('a Star printer’s Basic credentials are not an Epson printer’s, nor the other way', async () => {
    const { values } = await addPrinter();
    const basic = Buffer.from(`${values.USER}:${values.PASSWORD}`).toString('base64');
    const star = await fetch(`${shop.instances.one.api}/cloudprnt`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
      body: JSON.stringify({ statusCode: '200 OK' }),
    });
    expect(star.status).toBe(401);
  });

  it('prints a job once: the print request claims it, the result confirms it', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    await cycles(printer, 3);
    expect(printer.printed.map((p) => p.text)).toEqual(['Hello, printer\n']);
    expect(printer.printed[0]!.printJobId).toBe(`${queued.id}.1`);
    expect(printer.wire).toEqual([
      'GetRequest 200 1 job',
      'SetResponse 200',
      'GetRequest 200 empty',
      'GetRequest 200 empty',
    ]);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 1 });
  });

  it('a template prints as ePOS-Print XML: its text, barcode and cut', async () => {
    const { route, printer } = await addPrinter();
    const token = await shop.instances.one.token(shop.company, [
      'printing.templates.write',
      'printing.jobs.create',
      'printing.jobs.read',
    ]);
    await createTemplate(shop.instances.one, token, {
      name: `epson-${route}`,
      source: 'Order | {{ number }}\n{code:{{ number }}; option:code128,2,72,hri}\n=',
      data_schema: undefined,
    });
    const created = await shop.instances.two.request('POST', '/printing/jobs', {
      token,
      body: { route, template: `epson-${route}`, data: { number: '</text>1042' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
    const [printed] = printer.printed;
    expect(printed!.text).toMatch(/^Order +<\/text>1042\n/);
    expect(printed!.text.indexOf('\n')).toBe(48);
    expect(printed!.elements).toMatchObject({ barcode: 1, cut: 1 });
    expect(await job(created.body.data.id)).toMatchObject({ status: 'printed' });
  });

  it('a repeated result does nothing twice; a result for another job does nothing', async () => {
    const { route, printer } = await addPrinter();
    const first = await queue(route);
    printer.faults.repeatResults = true;
    await cycles(printer, 1);
    const printed = await job(first.id);
    expect(printed).toMatchObject({ status: 'printed', attempts: 1 });
    expect(printer.wire).toEqual(['GetRequest 200 1 job', 'SetResponse 200', 'SetResponse 200']);
    // The printer holds the next job; a result naming another id changes nothing.
    const second = await queue(route);
    printer.faults.repeatResults = false;
    printer.faults.neverConfirm = true;
    await cycles(printer, 1);
    const stray = EpsonSdpPrinter.responseFile([
      { printJobId: `${first.id}.1`, success: false, code: 'EX_TIMEOUT' },
    ]);
    expect(await printer.setResponse(stray)).toBe(200);
    expect(await job(first.id)).toEqual(printed);
    expect(await job(second.id)).toMatchObject({ status: 'claimed' });
  });

  it('out of paper: the job waits with the reason, the printer shows stopped; refilled, it prints once', async () => {
    const { route, printer } = await addPrinter('No paper');
    const queued = await queue(route);
    printer.condition.paperEnd = true;
    await cycles(printer, 2);
    expect(printer.printed).toEqual([]);
    expect(await job(queued.id)).toMatchObject({
      status: 'queued',
      wait_reason: { code: 'printer_out_of_paper' },
    });
    const agents = await shop.instances.one.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
    const listed = agents.body.data.find((a: { name: string }) => a.name === 'No paper');
    expect(listed.printers[0]).toMatchObject({ state: 'stopped', reasons: ['media-empty-error'] });
    printer.condition.paperEnd = false;
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 3 });
    const after = await shop.instances.two.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
    const idle = after.body.data.find((a: { name: string }) => a.name === 'No paper');
    expect(idle.printers[0]).toMatchObject({ state: 'idle', reasons: [] });
  });

  it('cover open: the job waits for a closed cover, then prints once', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.condition.coverOpen = true;
    await cycles(printer, 1);
    expect(await job(queued.id)).toMatchObject({ wait_reason: { code: 'printer_cover_open' } });
    printer.condition.coverOpen = false;
    await cycles(printer, 1);
    expect(printer.printed).toHaveLength(1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed' });
  });

  it('a result the network lost is sent again and confirms the job once; nothing else is handed out meanwhile', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    const next = await queue(route);
    printer.faults.dropNextResult = true;
    await cycles(printer, 1);
    expect(await job(queued.id)).toMatchObject({ status: 'claimed' });
    // Asked for work before its result got through: nothing, the claim is still its own.
    expect(await printer.getRequest()).toBeUndefined();
    await cycles(printer, 1);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 1 });
    expect(printer.printed.map((p) => p.printJobId)).toEqual([`${queued.id}.1`, `${next.id}.1`]);
  });

  it('an answer the network lost is not handed out again: the lease fails it, never printed twice', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.loseNextAnswer = true;
    await cycles(printer, 3);
    expect(printer.printed).toEqual([]);
    expect(printer.wire.slice(1)).toEqual([
      'GetRequest answer lost',
      'GetRequest 200 empty',
      'GetRequest 200 empty',
    ]);
    await leaseRunsOutWhileAsking(printer);
    expect(await job(queued.id)).toMatchObject({
      status: 'failed',
      error: { code: 'lease_expired' },
    });
  });

  it('a printer that never confirms keeps its claim until the lease ends, then the job fails (printed once)', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.neverConfirm = true;
    await cycles(printer, 3);
    expect(printer.printed).toHaveLength(1);
    await leaseRunsOutWhileAsking(printer);
    expect(await job(queued.id)).toMatchObject({
      status: 'failed',
      error: { code: 'lease_expired' },
    });
    await cycles(printer, 2);
    expect(printer.printed).toHaveLength(1);
  });

  it('a job the printer cannot take (ZPL) is refused at the door with 422, naming what the route prints', async () => {
    const { route, printer } = await addPrinter();
    await cycles(printer, 1);
    const answer = await shop.instances.two.request('POST', '/printing/jobs', {
      token: shop.integrator,
      body: {
        route,
        content_type: 'application/vnd.zebra.zpl',
        content_base64: Buffer.from('^XA^XZ').toString('base64'),
      },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.content_type[0]).toContain(
      'application/vnd.epson.epos-print+xml, text/plain',
    );
  });

  it('a print request with nothing to print and nothing new writes nothing', async () => {
    const { printer } = await addPrinter();
    await cycles(printer, 3);
    const server = shop.instances.two;
    const ask = () => printer.through(`${server.api}/cloudprnt/epson`).getRequest();
    await expectWritesNothing(dialect, server, ask);
    expect(printer.wire.at(-1)).toBe('GetRequest 200 empty');
  });
});
