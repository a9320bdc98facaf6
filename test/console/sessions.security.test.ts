import { beforeAll, describe, expect, it } from 'vitest';
import { signInTriesPerMinute } from '../../server/console/routes.ts';
import {
  type ConsoleUser,
  consoleRequest,
  consoleUser,
  openStream,
  signIn,
} from '../helpers/console.ts';
import { startTestServer } from '../helpers/server.ts';
import { createJob, integratorToken, registerAgent } from '../printing/helpers.ts';
import { consoleCompany } from './helpers.ts';

/**
 * The console's sessions and their guards, on both databases; on PostgreSQL with two
 * instances, so that a sign-out, a removal or a password change on one counts on the other.
 */
describe.each(['sqlite', 'postgres'] as const)('console sessions on %s', (dialect) => {
  const shop = consoleCompany(dialect, 'Console Co');
  let owner: ConsoleUser;
  let staff: ConsoleUser;

  beforeAll(async () => {
    owner = await shop.user('owner');
    staff = await shop.user('staff');
  });

  it('signs in with an HttpOnly, SameSite cookie, and the session works on the other instance', async () => {
    const answer = await consoleRequest(shop.instances.one, 'POST', '/console/session', {
      body: { email: owner.email, password: owner.password },
    });
    expect(answer.status).toBe(200);
    const cookie = answer.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^shopdesk_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain('Secure'); // plain HTTP here; behind TLS it is added
    expect(answer.body.data.user.role).toBe('owner');
    const me = await consoleRequest(shop.instances.two, 'GET', '/console/session', {
      cookie: cookie.split(';')[0]!,
    });
    expect(me.status).toBe(200);
    expect(me.body.data.abilities).toEqual(['tokens.manage', 'users.manage']);
    // An owner may hand an agent's permission to a token, though a person never holds it.
    expect(me.body.data.grantable).toContain('printing.agent');
    expect(me.body.data.permissions).not.toContain('printing.agent');
  });

  it('refuses a wrong password and an unknown address alike', async () => {
    for (const body of [
      { email: owner.email, password: 'wrong password!' },
      { email: 'nobody@shop.example', password: 'whatever it is' },
    ]) {
      const answer = await consoleRequest(shop.instances.one, 'POST', '/console/session', { body });
      expect(answer.status).toBe(401);
      expect(answer.body.message).toBe('The e-mail or password is incorrect.');
    }
  });

  it('answers 401 without a session, and to a made-up cookie', async () => {
    expect((await consoleRequest(shop.instances.one, 'GET', '/console/overview')).status).toBe(401);
    const forged = await consoleRequest(shop.instances.one, 'GET', '/printing/history', {
      cookie: 'shopdesk_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(forged.status).toBe(401);
  });

  it('refuses a change without Origin, or from another site (CSRF), and takes it from its own', async () => {
    const cookie = await signIn(shop.instances.one, owner);
    const body = { name: 'csrf', permissions: ['printing.jobs.read'] };
    const none = await consoleRequest(shop.instances.one, 'POST', '/console/tokens', {
      cookie,
      body,
      origin: null,
    });
    expect(none.status).toBe(403);
    const other = await consoleRequest(shop.instances.one, 'POST', '/console/tokens', {
      cookie,
      body,
      origin: 'https://evil.example',
    });
    expect(other.status).toBe(403);
    expect(other.body.message).toMatch(/Origin/);
    const own = await consoleRequest(shop.instances.one, 'POST', '/console/tokens', {
      cookie,
      body,
    });
    expect(own.status).toBe(201);
    // Sign-in itself is checked too (login CSRF).
    const signInElsewhere = await consoleRequest(shop.instances.one, 'POST', '/console/session', {
      body: { email: owner.email, password: owner.password },
      origin: 'https://evil.example',
    });
    expect(signInElsewhere.status).toBe(403);
  });

  it("answers 404 for another company's job, as the API does", async () => {
    const otherCompany = await shop.instances.one.createCompany('Other Co');
    const token = await integratorToken(shop.instances.one, otherCompany);
    const job = await createJob(shop.instances.one, token);
    const cookie = await signIn(shop.instances.one, owner);
    const read = await consoleRequest(shop.instances.one, 'GET', `/printing/jobs/${job.id}`, {
      cookie,
    });
    expect(read.status).toBe(404);
    const cancel = await consoleRequest(
      shop.instances.one,
      'POST',
      `/printing/jobs/${job.id}/cancel`,
      {
        cookie,
      },
    );
    expect(cancel.status).toBe(404);
    const document = await consoleRequest(
      shop.instances.one,
      'GET',
      `/console/jobs/${job.id}/document`,
      { cookie },
    );
    expect(document.status).toBe(404);
  });

  it('holds each role to its permissions: the server refuses what the page hides', async () => {
    const cookie = await signIn(shop.instances.one, staff);
    expect(
      (await consoleRequest(shop.instances.one, 'GET', '/console/tokens', { cookie })).status,
    ).toBe(403);
    expect(
      (await consoleRequest(shop.instances.one, 'GET', '/console/users', { cookie })).status,
    ).toBe(403);
    expect((await consoleRequest(shop.instances.one, 'GET', '/webhooks', { cookie })).status).toBe(
      403,
    );
    const enrol = await consoleRequest(shop.instances.one, 'POST', '/printing/enrollments', {
      cookie,
      body: {},
    });
    expect(enrol.status).toBe(403);
    // What staff may do: see jobs and agents, cancel.
    expect(
      (await consoleRequest(shop.instances.one, 'GET', '/printing/history', { cookie })).status,
    ).toBe(200);
    expect(
      (await consoleRequest(shop.instances.one, 'GET', '/printing/agents', { cookie })).status,
    ).toBe(200);
    const token = await integratorToken(shop.instances.one, shop.companyId);
    const job = await createJob(shop.instances.one, token);
    const cancel = await consoleRequest(
      shop.instances.one,
      'POST',
      `/printing/jobs/${job.id}/cancel`,
      {
        cookie,
      },
    );
    expect(cancel.status).toBe(200);
    expect(cancel.body.data.status).toBe('cancelled');
    // A manager makes tokens, but none beyond their own permissions.
    const manager = await consoleUser(shop.instances.one, shop.companyId, 'manager');
    const managerCookie = await signIn(shop.instances.one, manager);
    const beyond = await consoleRequest(shop.instances.one, 'POST', '/console/tokens', {
      cookie: managerCookie,
      body: { name: 'too much', permissions: ['customers.read'] },
    });
    expect(beyond.status).toBe(403);
    // A token is no person: the console's own routes refuse it.
    const admin = await shop.instances.one.token(shop.companyId, '*');
    const byToken = await shop.instances.one.request('GET', '/console/tokens', { token: admin });
    expect(byToken.status).toBe(403);
  });

  it('ends the session on every instance at sign-out', async () => {
    const cookie = await signIn(shop.instances.one, owner);
    expect(
      (await consoleRequest(shop.instances.two, 'GET', '/console/overview', { cookie })).status,
    ).toBe(200);
    expect(
      (await consoleRequest(shop.instances.one, 'DELETE', '/console/session', { cookie })).status,
    ).toBe(204);
    expect(
      (await consoleRequest(shop.instances.two, 'GET', '/console/overview', { cookie })).status,
    ).toBe(401);
  });

  it('ends a removed user’s sessions at once, on the other instance too', async () => {
    const leaving = await consoleUser(shop.instances.one, shop.companyId, 'staff');
    const cookie = await signIn(shop.instances.two, leaving);
    const ownerCookie = await signIn(shop.instances.one, owner);
    const removed = await consoleRequest(
      shop.instances.one,
      'DELETE',
      `/console/users/${leaving.id}`,
      {
        cookie: ownerCookie,
      },
    );
    expect(removed.status).toBe(204);
    expect(
      (await consoleRequest(shop.instances.two, 'GET', '/printing/history', { cookie })).status,
    ).toBe(401);
  });

  it('ends every session of the user at a password change', async () => {
    const user = await consoleUser(shop.instances.one, shop.companyId, 'staff');
    const first = await signIn(shop.instances.one, user);
    const second = await signIn(shop.instances.two, user);
    const changed = await consoleRequest(shop.instances.one, 'PUT', '/console/password', {
      cookie: first,
      body: { current_password: user.password, password: 'a brand new passphrase' },
    });
    expect(changed.status).toBe(204);
    expect(
      (await consoleRequest(shop.instances.two, 'GET', '/console/session', { cookie: second }))
        .status,
    ).toBe(401);
    expect(
      (await consoleRequest(shop.instances.one, 'GET', '/console/session', { cookie: first }))
        .status,
    ).toBe(401);
    await signIn(shop.instances.two, { email: user.email, password: 'a brand new passphrase' });
  });

  it('sets a password once with the invitation link', async () => {
    const ownerCookie = await signIn(shop.instances.one, owner);
    const invited = await consoleRequest(shop.instances.one, 'POST', '/console/users', {
      cookie: ownerCookie,
      body: { email: `invited-${dialect}@shop.example`, role: 'staff' },
    });
    expect(invited.status).toBe(201);
    const code = new URL(invited.body.data.setup_url).hash.replace('#code=', '');
    const set = await consoleRequest(shop.instances.two, 'POST', '/console/password', {
      body: { code, password: 'my own passphrase' },
    });
    expect(set.status).toBe(204);
    const again = await consoleRequest(shop.instances.two, 'POST', '/console/password', {
      body: { code, password: 'someone elses pass' },
    });
    expect(again.status).toBe(422);
    await signIn(shop.instances.one, {
      email: `invited-${dialect}@shop.example`,
      password: 'my own passphrase',
    });
  });

  it('limits sign-in tries per account, whichever instance they reach', async () => {
    const target = await consoleUser(shop.instances.one, shop.companyId, 'staff');
    const statuses: number[] = [];
    for (let i = 0; i <= signInTriesPerMinute; i++) {
      const server = i % 2 === 0 ? shop.instances.one : shop.instances.two;
      const answer = await consoleRequest(server, 'POST', '/console/session', {
        body: { email: target.email, password: `guess number ${i}` },
      });
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, -1).every((status) => status === 401 || status === 429)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Even the right password waits now.
    const right = await consoleRequest(shop.instances.one, 'POST', '/console/session', {
      body: target,
    });
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('serves the console with a strict CSP, and GET / redirects to it', async () => {
    const root = await fetch(`${shop.instances.one.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    for (const path of ['/console/', '/console/jobs/5', '/console/assets/app.js']) {
      const page = await fetch(`${shop.instances.one.url}${path}`);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
    }
  });

  it('streams a change to a signed-in page when a job changes on the other instance', async () => {
    const cookie = await signIn(shop.instances.one, owner);
    await registerAgent(shop.instances.two, shop.companyId, ['receipts']);
    const stream = await openStream(`${shop.instances.one.api}/events/stream`, { cookie });
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const first = await stream.nextChange();
    const token = await integratorToken(shop.instances.two, shop.companyId);
    await createJob(shop.instances.two, token);
    const second = await stream.nextChange();
    expect(second).not.toBe(first);
    stream.close();
    // Away meanwhile: resumed with the first id, the change made since comes at once.
    await createJob(shop.instances.two, token);
    const resumed = await openStream(`${shop.instances.one.api}/events/stream`, {
      cookie,
      'last-event-id': second,
    });
    expect(await resumed.nextChange()).not.toBe(second);
    resumed.close();
  });
});

describe('the session cookie behind TLS', () => {
  it('is Secure when the console is reached over https (--public-url)', async () => {
    const server = await startTestServer({ config: { publicUrl: 'https://shop.example' } });
    try {
      const companyId = await server.createCompany();
      const user = await consoleUser(server, companyId, 'staff');
      const answer = await consoleRequest(server, 'POST', '/console/session', {
        body: { email: user.email, password: user.password },
        origin: 'https://shop.example',
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('set-cookie')).toMatch(
        /; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/,
      );
    } finally {
      await server.close();
    }
  });
});
