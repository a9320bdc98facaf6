import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers/instances.ts';
import { CloudPrntPrinter } from '../helpers/printer-simulators/cloudprnt.ts';
import type { TestServer } from '../helpers/server.ts';
import { expectWritesNothing, printerCompany, starPrinter } from './helpers.ts';

/**
 * CloudPRNT's job token (docs/cloudprnt.md, "The job token"), end to end: the poll that says
 * `jobReady` hands out `jobToken`, and the printer sends it back as the `token` of its GET and
 * DELETE (Star's Request (GET) and Print job confirmation (DELETE) pages), which act only on
 * the claim it names. On SQLite and on PostgreSQL with two instances, requests spread over both.
 */
describe.each(dialects)('the CloudPRNT job token (%s)', (dialect) => {
  const shop = printerCompany(dialect);

  /** A printer on a route of its own, its client actions answered (the next poll is plain). */
  async function addPrinter(options: { takesJobToken?: boolean } = {}) {
    const { route, values } = await shop.addPrinter('token', { server: shop.instances.one.url });
    const printer = starPrinter(values, options);
    await printer.poll();
    return { route, printer };
  }

  const { job, queue, cycles } = shop;
  const via = (printer: CloudPrntPrinter, server: TestServer) =>
    printer.through(`${server.api}/cloudprnt`);

  it('the poll hands out the token of the claim its GET makes; GET and DELETE bring it back; it prints once', async () => {
    const { route, printer } = await addPrinter();
    const first = await queue(route);
    const ready = await via(printer, shop.instances.two).poll();
    expect(ready).toEqual({
      jobReady: true,
      mediaTypes: ['application/vnd.star.starprnt', 'text/plain'],
      jobToken: '1',
    });
    // Asked again before the GET, the poll names the same claim: handing it out made nothing.
    expect((await via(printer, shop.instances.one).poll()).jobToken).toBe('1');
    await cycles(printer, 1);
    expect(printer.printed.map((p) => p.token)).toEqual(['1']);
    expect(printer.wire.slice(-3)).toEqual(['POST 200', 'GET 200', 'DELETE 200 200 OK']);
    expect(await job(first.id)).toMatchObject({ status: 'printed', attempts: 1 });
    expect((await via(printer, shop.instances.two).poll()).jobReady).toBe(false);
    const second = await queue(route);
    await cycles(printer, 1);
    expect(printer.printed.map((p) => p.token)).toEqual(['1', '2']);
    expect(await job(second.id)).toMatchObject({ status: 'printed', attempts: 1 });
  });

  it('a GET whose token names no claim of the printer serves nothing (404) and claims nothing', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    expect((await via(printer, shop.instances.one).poll()).jobToken).toBe('1');
    for (const wrong of ['2', '0', 'abc', '1.1']) {
      const answer = await via(printer, shop.instances.two).fetchJob('text/plain', wrong);
      expect(answer.status, wrong).toBe(404);
    }
    expect(await job(queued.id)).toMatchObject({ status: 'queued', attempts: 0 });
    const fetched = await via(printer, shop.instances.one).fetchJob('text/plain', '1');
    expect(fetched.status).toBe(200);
    // The same token again (another instance): the same claim, served again, nothing claimed.
    const again = await via(printer, shop.instances.two).fetchJob('text/plain', '1');
    expect(again.bytes.equals(fetched.bytes)).toBe(true);
    expect(await job(queued.id)).toMatchObject({ status: 'claimed', attempts: 1 });
    // The next claim's number is no claim while this one is held.
    expect((await via(printer, shop.instances.one).fetchJob('text/plain', '2')).status).toBe(404);
  });

  it('two GETs naming the same next claim at once, one through each instance, make one claim', async () => {
    const { route, printer } = await addPrinter();
    const queued = [await queue(route), await queue(route)];
    expect((await via(printer, shop.instances.one).poll()).jobToken).toBe('1');
    const url = (server: TestServer) => `${server.api}/cloudprnt`;
    const twin = new CloudPrntPrinter({ ...printer.options, url: url(shop.instances.two) });
    const answers = await Promise.all([
      via(printer, shop.instances.one).fetchJob('text/plain', '1'),
      twin.fetchJob('text/plain', '1'),
    ]);
    expect(answers.map((a) => a.status)).toContain(200);
    const states = await Promise.all(queued.map(({ id }) => job(id)));
    expect(states.map((s) => s.status).sort()).toEqual(['claimed', 'queued']);
  });

  it('a DELETE with a stale or wrong token changes nothing; one with the held claim’s token confirms it once', async () => {
    const { route, printer } = await addPrinter();
    const first = await queue(route);
    await cycles(printer, 1);
    expect(await job(first.id)).toMatchObject({ status: 'printed' });
    const second = await queue(route);
    expect((await via(printer, shop.instances.two).poll()).jobToken).toBe('2');
    expect((await via(printer, shop.instances.one).fetchJob('text/plain', '2')).status).toBe(200);
    // The first job's token (its DELETE sent again late), and tokens never given: nothing.
    for (const stale of ['1', '3', 'abc']) {
      expect(await via(printer, shop.instances.two).confirm(stale, '500 Paper jam'), stale).toBe(
        200,
      );
    }
    expect(await job(second.id)).toMatchObject({ status: 'claimed', attempts: 1 });
    expect(await via(printer, shop.instances.one).confirm('2', '200 OK')).toBe(200);
    const printed = await job(second.id);
    expect(printed).toMatchObject({ status: 'printed', attempts: 1 });
    // The same DELETE again, through the other instance, a failure code this time: nothing.
    expect(await via(printer, shop.instances.two).confirm('2', '500 Paper jam')).toBe(200);
    expect(await job(second.id)).toEqual(printed);
  });

  it('a token whose claim ended (given back by a 520) is never served again: the next poll names a new claim', async () => {
    const { route, printer } = await addPrinter();
    const queued = await queue(route);
    printer.faults.cutNextGet = true;
    await cycles(printer, 1);
    expect(printer.wire.slice(-2)).toEqual(['GET lost', 'DELETE 200 520 Timeout']);
    expect(await job(queued.id)).toMatchObject({ status: 'queued', attempts: 1 });
    expect((await via(printer, shop.instances.two).fetchJob('text/plain', '1')).status).toBe(404);
    expect(await job(queued.id)).toMatchObject({ status: 'queued', attempts: 1 });
    expect((await via(printer, shop.instances.one).poll()).jobToken).toBe('2');
    await cycles(printer, 1);
    expect(printer.printed.map((p) => p.token)).toEqual(['2']);
    expect(await job(queued.id)).toMatchObject({ status: 'printed', attempts: 2 });
  });

  it('older firmware, which sends no token, prints once as before', async () => {
    const { route, printer } = await addPrinter({ takesJobToken: false });
    const queued = [await queue(route), await queue(route)];
    printer.faults.dropNextDelete = true;
    await cycles(printer, 4);
    expect(printer.printed.map((p) => p.token)).toEqual([null, null]);
    for (const { id } of queued) {
      expect(await job(id)).toMatchObject({ status: 'printed', attempts: 1 });
    }
  });

  it('a poll that hands out a token writes nothing', async () => {
    const { route, printer } = await addPrinter();
    await cycles(printer, 2);
    await queue(route);
    const server = shop.instances.two;
    const poll = () => via(printer, server).poll();
    await expectWritesNothing(dialect, server, poll);
    expect(printer.lastAnswer).toMatchObject({ jobReady: true, jobToken: '1' });
  });
});
