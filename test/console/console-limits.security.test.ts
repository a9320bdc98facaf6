import { beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../server/tokens/create-token.ts';
import { permissions } from '../../shared/permissions.ts';
import {
  type ConsoleUser,
  consoleRequest,
  consoleUser,
  openStream,
  signIn,
} from '../helpers/console.ts';
import { createJob, integratorToken } from '../printing/helpers.ts';
import { consoleCompany } from './helpers.ts';

/**
 * What a probe of the console found a person or a token could reach beyond their own: the
 * live stream moved by other companies' printing, an invitation telling whether an address
 * has an account in another company, the pages' routes answering a token, a manager revoking
 * tokens it could not make. On both
 * databases; on PostgreSQL through two instances.
 */
describe.each(['sqlite', 'postgres'] as const)('console limits on %s', (dialect) => {
  const shop = consoleCompany(dialect, 'Limits Co');
  let owner: ConsoleUser;
  let manager: ConsoleUser;

  beforeAll(async () => {
    owner = await shop.user('owner');
    manager = await shop.user('manager');
  });

  it("a company's live stream carries its own changes only, whichever instance made another's", async () => {
    const neighbour = await shop.instances.one.createCompany('Busy Neighbour');
    const theirs = await integratorToken(shop.instances.two, neighbour);
    const cookie = await signIn(shop.instances.one, owner);
    const stream = await openStream(`${shop.instances.one.api}/events/stream`, { cookie });
    expect(stream.status).toBe(200);
    const first = await stream.nextChange();
    // Opaque: no count of anything (it was the trail's newest id of all companies, in clear).
    expect(first).toMatch(/^[\w-]{22}$/);
    // The neighbour prints through both instances: its job changes wake streams of its own
    // at once (on the other instance by a notice), never this company's.
    for (const server of [
      shop.instances.one,
      shop.instances.two,
      shop.instances.one,
      shop.instances.two,
    ]) {
      const job = await createJob(server, theirs);
      await server.request('POST', `/printing/jobs/${job.id}/cancel`, { token: theirs });
    }
    expect(await stream.nextChange(1500)).toBeUndefined();
    // Its own job is a change, within the second.
    await createJob(shop.instances.two, await integratorToken(shop.instances.two, shop.companyId));
    const second = await stream.nextChange(10_000);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    stream.close();
    // Every instance computes the same version: resumed on the other, nothing is new.
    const resumed = await openStream(`${shop.instances.two.api}/events/stream`, {
      cookie,
      'last-event-id': second!,
    });
    expect(await resumed.nextChange(1000)).toBeUndefined();
    resumed.close();
  });

  it('an invitation answers the same whether or not the address has an account in another company', async () => {
    const elsewhere = await shop.instances.one.createCompany('Elsewhere Co');
    const theirs = await consoleUser(shop.instances.one, elsewhere, 'staff');
    const fresh = `fresh-${dialect}@shop.example`;
    const cookie = await signIn(shop.instances.one, owner);
    const invite = (email: string) =>
      consoleRequest(shop.instances.two, 'POST', '/console/users', {
        cookie,
        body: { email, role: 'staff' },
      });
    const taken = await invite(theirs.email);
    const free = await invite(fresh);
    for (const answer of [taken, free]) {
      expect(answer.status).toBe(201);
      expect(Object.keys(answer.body.data).sort()).toEqual(['expires_at', 'setup_url', 'user']);
      expect(answer.body.data.user).toMatchObject({ role: 'staff', active: false });
      expect(answer.headers.get('location')).toMatch(/\/console\/users\/\d+$/);
    }
    // Both are invited people of this company, listed alike.
    const listed = await consoleRequest(shop.instances.one, 'GET', '/console/users', { cookie });
    const invited = listed.body.data.filter((u: { email: string }) =>
      [theirs.email, fresh].includes(u.email),
    );
    expect(invited.map((u: { active: boolean }) => u.active)).toEqual([false, false]);
    // Both links work: each sets the password of an account of this company.
    const password = 'the invited passphrase';
    for (const answer of [taken, free]) {
      const code = new URL(answer.body.data.setup_url).hash.replace('#code=', '');
      const set = await consoleRequest(shop.instances.one, 'POST', '/console/password', {
        body: { code, password },
      });
      expect(set.status).toBe(204);
    }
    for (const email of [theirs.email, fresh]) {
      const session = await signIn(shop.instances.two, { email, password });
      const me = await consoleRequest(shop.instances.one, 'GET', '/console/session', {
        cookie: session,
      });
      expect(me.body.data.company.id).toBe(shop.companyId);
    }
    // Nothing broke: the other company's account opens with its own password, as before.
    const own = await signIn(shop.instances.one, theirs);
    const me = await consoleRequest(shop.instances.two, 'GET', '/console/session', { cookie: own });
    expect(me.body.data.company.id).toBe(elsewhere);
    // One password for both accounts of an address: the older opens.
    const twice = await consoleUser(shop.instances.one, elsewhere, 'staff');
    const second = await invite(twice.email);
    await consoleRequest(shop.instances.one, 'POST', '/console/password', {
      body: {
        code: new URL(second.body.data.setup_url).hash.replace('#code=', ''),
        password: twice.password,
      },
    });
    const older = await signIn(shop.instances.two, twice);
    const opened = await consoleRequest(shop.instances.one, 'GET', '/console/session', {
      cookie: older,
    });
    expect(opened.body.data.company.id).toBe(elsewhere);
    // An address taken in this company (which its owner sees in the list) is still a 422.
    const again = await invite(fresh);
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ email: ['The email has already been taken.'] });
  });

  it("the pages' own routes (overview, a job's document) are for people: a token gets 403", async () => {
    const token = await integratorToken(shop.instances.one, shop.companyId);
    const job = await createJob(shop.instances.one, token);
    const paths = ['/console/overview', `/console/jobs/${job.id}/document`];
    const admin = await shop.instances.one.token(shop.companyId, '*');
    for (const path of paths) {
      const byToken = await shop.instances.two.request('GET', path, { token: admin });
      expect(byToken.status, path).toBe(403);
      expect(byToken.body.message).toBe('This route is for people signed in to the console.');
    }
    const cookie = await signIn(shop.instances.one, owner);
    for (const path of paths) {
      expect((await consoleRequest(shop.instances.two, 'GET', path, { cookie })).status, path).toBe(
        200,
      );
    }
  });

  it('a manager revokes only tokens within its own permissions, as it creates them', async () => {
    const { db } = shop.instances.one.app.services.storage;
    const all = await createToken(db, {
      companyId: shop.companyId,
      name: 'everything',
      permissions: [...permissions],
    });
    const agent = await createToken(db, {
      companyId: shop.companyId,
      name: 'a till',
      permissions: ['printing.agent'],
    });
    const managerCookie = await signIn(shop.instances.one, manager);
    for (const id of [all.id, agent.id]) {
      const refused = await consoleRequest(
        shop.instances.two,
        'POST',
        `/console/tokens/${id}/revoke`,
        {
          cookie: managerCookie,
        },
      );
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/^The role manager may not revoke a token with /);
    }
    // Both still work.
    expect((await shop.instances.two.request('GET', '/me', { token: all.secret })).status).toBe(
      200,
    );
    expect((await shop.instances.two.request('GET', '/me', { token: agent.secret })).status).toBe(
      200,
    );
    // Within the manager's permissions: revoked, and it stops at once on both instances.
    const made = await consoleRequest(shop.instances.one, 'POST', '/console/tokens', {
      cookie: managerCookie,
      body: { name: 'till reader', permissions: ['printing.jobs.read'] },
    });
    expect(made.status).toBe(201);
    const revoked = await consoleRequest(
      shop.instances.two,
      'POST',
      `/console/tokens/${made.body.data.id}/revoke`,
      { cookie: managerCookie },
    );
    expect(revoked.status).toBe(204);
    const secret: string = made.body.data.secret;
    expect((await shop.instances.one.request('GET', '/me', { token: secret })).status).toBe(401);
    // The owner may revoke the `*` token.
    const ownerCookie = await signIn(shop.instances.one, owner);
    const byOwner = await consoleRequest(
      shop.instances.two,
      'POST',
      `/console/tokens/${all.id}/revoke`,
      {
        cookie: ownerCookie,
      },
    );
    expect(byOwner.status).toBe(204);
    expect((await shop.instances.one.request('GET', '/me', { token: all.secret })).status).toBe(
      401,
    );
  });
});
