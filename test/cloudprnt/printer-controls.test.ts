import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleRequest, consoleUser, signIn } from '../helpers/console.ts';
import { dialects } from '../helpers/instances.ts';
import type { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import { createJob } from '../printing/helpers.ts';
import { addPrinterByCli, printerCompany, starPrinter } from './helpers.ts';

/**
 * The cutter and the cash drawer of a CloudPRNT printer, end to end (docs/cloudprnt.md, "Cut,
 * cash drawer and buzzer"): a plain-text job's GET answer carries `X-Star-Cut` and
 * `X-Star-CashDrawer` from its route's profile, as Star's Response (GET) page defines them,
 * and the simulated printer cuts and opens its drawer by them; a StarPRNT job gets none. On
 * SQLite and on PostgreSQL with two instances.
 */
describe.each(dialects)('CloudPRNT cut and drawer (%s)', (dialect) => {
  const shop = printerCompany(dialect);
  let owner: string;

  beforeAll(async () => {
    owner = await signIn(
      shop.instances.one,
      await consoleUser(shop.instances.one, shop.company, 'owner'),
    );
  });

  /** A printer on a route of its own, the route's profile set as a person sets it. */
  async function printerWith(profile: Record<string, unknown>) {
    const route = shop.nextRoute('controls');
    const name = `Till of ${route}`;
    const server = shop.instances.one.url;
    const values = await addPrinterByCli(shop.instances, shop.company, route, { name, server });
    const agents = await shop.instances.two.request('GET', '/printing/agents', {
      token: shop.integrator,
    });
    const agent = agents.body.data.find((a: { name: string }) => a.name === name);
    const routes = [{ name: route, printer: name, profile: { language: 'starprnt', ...profile } }];
    const saved = await consoleRequest(
      shop.instances.one,
      'PUT',
      `/console/agents/${agent.id}/routes`,
      {
        cookie: owner,
        body: { routes },
      },
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    return { route, printer: starPrinter(values), values };
  }

  const { cycles } = shop;
  const queueText = (route: string) => createJob(shop.instances.one, shop.integrator, { route });

  it('plain text on a profile with a cutter (the default): a full cut after a feed, no drawer', async () => {
    const { route, printer } = await printerWith({});
    const queued = await queueText(route);
    await cycles(printer, 3);
    expect(printer.printed).toMatchObject([{ mediaType: 'text/plain', cut: 'full', drawer: null }]);
    expect(await shop.job(queued.id)).toMatchObject({
      status: 'printed',
    });
  });

  it('plain text on a profile with `drawer: true`: the drawer opens at the end of the job', async () => {
    const { route, printer } = await printerWith({ drawer: true });
    await queueText(route);
    await cycles(printer, 3);
    expect(printer.printed).toMatchObject([{ cut: 'full', drawer: 'end' }]);
  });

  it('plain text on a profile with `cut: false`: no cut (the printer would cut by default)', async () => {
    const { route, printer } = await printerWith({ cut: false });
    await queueText(route);
    await cycles(printer, 3);
    expect(printer.printed).toMatchObject([{ cut: null, drawer: null }]);
  });

  /** The poll's job token (its client actions answered first), and the GET that sends it. */
  async function rawFetch(printer: CloudPrntPrinter, values: Record<string, string>, type: string) {
    await printer.poll();
    const token = (await printer.poll()).jobToken as string;
    const url = `${values.URL}?type=${encodeURIComponent(type)}&token=${token}`;
    return { token, ...(await rawGet(url, values)) };
  }

  it('the headers go by Star’s names (no buzzer: nothing asks for one)', async () => {
    const { route, printer, values } = await printerWith({ drawer: true });
    await queueText(route);
    const raw = await rawFetch(printer, values, 'text/plain');
    expect(raw.status).toBe(200);
    expect(raw.names).toEqual(expect.arrayContaining(['X-Star-Cut', 'X-Star-CashDrawer']));
    expect(raw.names.filter((n) => /buzzer/i.test(n))).toEqual([]);
  });

  it('a StarPRNT job carries its own commands: no X-Star header, even with `drawer: true`', async () => {
    const { route, printer, values } = await printerWith({ drawer: true });
    const queued = await createJob(shop.instances.one, shop.integrator, {
      route,
      content_type: 'application/vnd.star.starprnt',
      content_base64: Buffer.from('\x1b@Hello\n\x07\x1bd\x03').toString('base64'),
    });
    const raw = await rawFetch(printer, values, 'application/vnd.star.starprnt');
    expect(raw.status).toBe(200);
    expect(raw.names.filter((n) => /^x-star-/i.test(n))).toEqual([]);
    expect(
      await printer.through(`${shop.instances.two.api}/cloudprnt`).confirm(raw.token, '200 OK'),
    ).toBe(200);
    expect(await shop.job(queued.id)).toMatchObject({
      status: 'printed',
    });
  });
});

/** A GET as the printer sends it, read with node:http: the header names as they were sent. */
function rawGet(
  url: string,
  values: Record<string, string>,
): Promise<{ status: number; names: string[] }> {
  const basic = Buffer.from(`${values.USER}:${values.PASSWORD}`).toString('base64');
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { authorization: `Basic ${basic}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        const names = res.rawHeaders.filter((_value, index) => index % 2 === 0);
        resolve({ status: res.statusCode ?? 0, names });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
