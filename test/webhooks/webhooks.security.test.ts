import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolve } from '../../server/webhooks/address-policy.ts';
import { SecretBox } from '../../server/webhooks/secret-box.ts';
import { expectPermissionMatrix } from '../helpers/catalog.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import { captureLogs, startTestServer, type TestServer } from '../helpers/server.ts';
import { deliveriesOf, dispatch, startWebhookServer, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

const routes = [
  { method: 'GET', path: '/webhooks' },
  { method: 'POST', path: '/webhooks', body: { url: 'https://93.184.216.34/', events: ['*'] } },
  { method: 'GET', path: '/webhooks/1' },
  { method: 'PATCH', path: '/webhooks/1', body: {} },
  { method: 'DELETE', path: '/webhooks/1' },
  { method: 'POST', path: '/webhooks/1/rotate-secret' },
  { method: 'GET', path: '/webhooks/1/deliveries' },
  { method: 'POST', path: '/webhooks/1/deliveries/1/retry' },
  { method: 'POST', path: '/webhooks/1/test' },
];

describe('webhooks: permission, company and address policy', () => {
  let server: TestServer;
  let companyId: number;
  let token: string;

  beforeAll(async () => {
    // The default policy: https only, public addresses only.
    server = await startTestServer();
    companyId = await server.createCompany();
    token = await server.token(companyId, ['webhooks.manage']);
  });
  afterAll(() => server.close());

  it.each(routes)('$method $path needs webhooks.manage', async (route) => {
    await expectPermissionMatrix(server, companyId, { ...route, permission: 'webhooks.manage' });
  });

  it.each([
    ['http://93.184.216.34/hooks', 'must be an https:// URL'],
    ['https://127.0.0.1/hooks', 'loopback address (127.0.0.1)'],
    ['https://localhost:8443/hooks', 'loopback address'],
    ['https://10.1.2.3/', 'private address (10.1.2.3)'],
    ['https://192.168.0.10/', 'private address'],
    ['https://172.20.0.1/', 'private address'],
    ['https://169.254.169.254/latest/meta-data', 'link-local address'],
    ['https://[::1]/', 'loopback address (::1)'],
    ['https://[fd00::1]/', 'unique local (private) address'],
    ['https://[::ffff:192.168.1.1]/', 'private address'],
    ['https://0.0.0.0/', 'unspecified address'],
    ['https://user:secret@93.184.216.34/', 'must not contain a user name or password'],
    ['https://no-such-host.invalid/', 'could not be resolved'],
    ['ftp://93.184.216.34/', 'must be an https:// URL'],
  ])('refuses %s at creation (422 on url)', async (url, why) => {
    const answer = await server.request('POST', '/webhooks', {
      token,
      body: { url, events: ['*'] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.url[0]).toContain(why);
  });

  it('accepts a public https address, and checks a changed url again', async () => {
    const created = await server.request('POST', '/webhooks', {
      token,
      body: { url: 'https://93.184.216.34/hooks', events: ['*'] },
    });
    expect(created.status).toBe(201);
    const moved = await server.request('PATCH', `/webhooks/${created.body.data.id}`, {
      token,
      body: { url: 'https://127.0.0.1/hooks' },
    });
    expect(moved.status).toBe(422);
    expect(moved.body.errors.url[0]).toContain('loopback');
  });

  it("answers another company's endpoint as not found, on every route", async () => {
    const created = await server.request('POST', '/webhooks', {
      token,
      body: { url: 'https://93.184.216.34/other', events: ['*'] },
    });
    const id = created.body.data.id;
    const stranger = await server.token(await server.createCompany(), ['webhooks.manage']);
    for (const route of routes.filter((r) => r.path.includes('/1'))) {
      const path = route.path.replace('/webhooks/1', `/webhooks/${id}`);
      const answer = await server.request(route.method, path, {
        token: stranger,
        body: route.body,
      });
      expect(answer.status, `${route.method} ${path}`).toBe(404);
    }
    const list = await server.request('GET', '/webhooks', { token: stranger });
    expect(list.body.data).toEqual([]);
  });

  it('stores the secret sealed: the database alone does not reveal it', async () => {
    const created = await server.request('POST', '/webhooks', {
      token,
      body: { url: 'https://93.184.216.34/sealed', events: ['*'] },
    });
    const secret: string = created.body.data.secret;
    const row = await server.app.services.storage.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', created.body.data.id)
      .executeTakeFirstOrThrow();
    const dump = JSON.stringify(row);
    expect(dump).not.toContain(secret.slice(6));
    expect(dump).not.toContain(Buffer.from(secret.slice(6), 'base64').toString('hex'));
    expect(row.secret).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    // The key is a file beside the database, readable by its owner only.
    const keyFile = join(server.dbFile, '..', 'secret.key');
    expect(statSync(keyFile).mode & 0o077).toBe(0);
    const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    expect(new SecretBox(key).open(row.secret, companyId)).toBe(secret);
    // Another key, or the same sealed value moved to another company, opens nothing.
    const otherKey = new SecretBox(Buffer.alloc(32, 7));
    expect(() => otherKey.open(row.secret, companyId)).toThrow(/same SHOPDESK_SECRET_KEY/);
    expect(() => new SecretBox(key).open(row.secret, companyId + 1)).toThrow();
  });
});

describe('webhooks: the address is checked again at delivery', () => {
  it('refuses a private address when the server no longer allows it (the same data, restarted)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-webhooks-'));
    const dbFile = join(dir, 'shopdesk.sqlite');
    const receiver = await new Receiver().start();
    try {
      const allowing = await startWebhookServer({ dbFile });
      const companyId = await allowing.createCompany();
      const token = await allowing.token(companyId, ['webhooks.manage']);
      const endpoint = await subscribe(allowing, token, receiver, ['stock.changed']);
      await allowing.close();

      const refusing = await startWebhookServer({
        dbFile,
        config: { webhooks: { allowHttp: true, allowPrivate: false } },
      });
      try {
        await refusing.request('POST', `/webhooks/${endpoint.id}/test`, { token });
        await dispatch(refusing);
        const [delivery] = await deliveriesOf(refusing, token, endpoint.id);
        expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
        expect(delivery!.last_error).toBe(
          '127.0.0.1 is a loopback address; refused (--webhooks-allow-private)',
        );
        expect(receiver.received).toEqual([]);
      } finally {
        await refusing.close();
      }
    } finally {
      await receiver.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an instance with another secret key cannot sign; rotating the secret recovers the endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-webhooks-'));
    const dbFile = join(dir, 'shopdesk.sqlite');
    const receiver = await new Receiver().start();
    const keyOf = (byte: number) => Buffer.alloc(32, byte).toString('base64');
    try {
      const first = await startWebhookServer({ dbFile, config: { secretKey: keyOf(1) } });
      const token = await first.token(await first.createCompany(), ['webhooks.manage']);
      const endpoint = await subscribe(first, token, receiver, ['stock.changed']);
      await first.close();

      const other = await startWebhookServer({ dbFile, config: { secretKey: keyOf(2) } });
      try {
        await other.request('POST', `/webhooks/${endpoint.id}/test`, { token });
        await dispatch(other);
        const [failed] = await deliveriesOf(other, token, endpoint.id);
        expect(failed).toMatchObject({ status: 'pending', attempts: 1 });
        expect(failed!.last_error).toMatch(
          /^cannot sign: the secret was sealed with key [\w-]+, and this server has key [\w-]+: every instance needs the same SHOPDESK_SECRET_KEY$/,
        );
        expect(receiver.received).toEqual([]);

        const rotated = await other.request('POST', `/webhooks/${endpoint.id}/rotate-secret`, {
          token,
        });
        receiver.secrets = [rotated.body.data.secret];
        await other.request('POST', `/webhooks/${endpoint.id}/test`, { token });
        await receiver.waitFor(1);
        // The old secret no longer opens: the new one alone signs.
        expect(receiver.received[0]!.signatures).toHaveLength(1);
        expect(receiver.received[0]!.verifiedBy).toEqual([0]);
      } finally {
        await other.close();
      }
    } finally {
      await receiver.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a name that resolves to a private address at connection time (DNS rebinding)', async () => {
    const receiver = await new Receiver().start();
    // A fake resolver, since no real DNS can be made to change its answer in a test: the
    // name is public when the endpoint is created and loopback when the delivery connects.
    let answer = '203.0.113.10';
    const rebinding: Resolve = async () => [{ address: answer, family: 4 }];
    const server = await startWebhookServer({
      config: { webhooks: { allowHttp: true, allowPrivate: false } },
      webhooks: { resolve: rebinding },
    });
    try {
      const token = await server.token(await server.createCompany(), ['webhooks.manage']);
      const port = new URL(receiver.url).port;
      const created = await server.request('POST', '/webhooks', {
        token,
        body: { url: `http://hooks.example.test:${port}/hooks`, events: ['*'] },
      });
      expect(created.status).toBe(201);
      answer = '127.0.0.1';
      await server.request('POST', `/webhooks/${created.body.data.id}/test`, { token });
      await dispatch(server);
      const [delivery] = await deliveriesOf(server, token, created.body.data.id);
      expect(delivery!.last_error).toContain(
        'hooks.example.test resolved to a loopback address (127.0.0.1); refused',
      );
      expect(receiver.received).toEqual([]);
    } finally {
      await server.close();
      await receiver.stop();
    }
  });

  it('never writes a secret to the log', async () => {
    const logs = captureLogs('trace');
    const receiver = await new Receiver().start();
    const server = await startWebhookServer({ log: logs.log });
    try {
      const token = await server.token(await server.createCompany(), ['webhooks.manage']);
      const endpoint = await subscribe(server, token, receiver, ['*']);
      const rotated = await server.request('POST', `/webhooks/${endpoint.id}/rotate-secret`, {
        token,
      });
      await server.request('POST', `/webhooks/${endpoint.id}/test`, { token });
      await receiver.waitFor(1);
      await dispatch(server);
      const text = logs.text();
      expect(text).toContain('/webhooks');
      for (const secret of [endpoint.secret, rotated.body.data.secret]) {
        expect(text).not.toContain(secret.slice(6));
      }
    } finally {
      await server.close();
      await receiver.stop();
    }
  });
});

/**
 * IPv6 addresses that carry an IPv4 one reach that IPv4 address through a NAT64 gateway, a
 * 6to4 relay or a Teredo tunnel: they are refused by the IPv4 address's range, at creation,
 * on a change and at delivery (server/webhooks/embedded-ipv4.ts).
 */
describe.each(databaseKinds)(
  'webhooks: IPv6 forms that embed a refused IPv4 address, on %s',
  (kind) => {
    let server: TestServer;
    let token: string;

    beforeAll(async () => {
      server = await startTestServerOn(kind);
      token = await server.token(await server.createCompany(), ['webhooks.manage']);
    });
    afterAll(() => server?.close());

    const forms = [
      [
        'https://[64:ff9b::a9fe:a9fe]/',
        'link-local address (64:ff9b::a9fe:a9fe, NAT64 for 169.254.169.254)',
      ],
      [
        'https://[2002:a9fe:a9fe::]/',
        'link-local address (2002:a9fe:a9fe::, 6to4 for 169.254.169.254)',
      ],
      ['https://[::127.0.0.1]/', 'loopback address (::7f00:1, IPv4-compatible for 127.0.0.1)'],
      [
        'https://[::ffff:0:a00:1]/',
        'private address (::ffff:0:a00:1, IPv4-translated for 10.0.0.1)',
      ],
      ['https://[2001:0:a00:1::]/', 'private address (2001:0:a00:1::, Teredo server for 10.0.0.1)'],
      [
        'https://[2001:0:5db8:d822::80ff:fffe]/',
        'loopback address (2001:0:5db8:d822::80ff:fffe, Teredo client for 127.0.0.1)',
      ],
    ] as const;

    it.each(forms)('refuses %s at creation and as a change (422 on url)', async (url, why) => {
      const created = await server.request('POST', '/webhooks', {
        token,
        body: { url, events: ['*'] },
      });
      expect(created.status).toBe(422);
      expect(created.body.errors.url[0]).toBe(
        `The url field points to a ${why}; this server sends webhooks to public addresses only.`,
      );
      const endpoint = await server.request('POST', '/webhooks', {
        token,
        body: { url: 'https://93.184.216.34/hooks', events: ['*'] },
      });
      expect(endpoint.status).toBe(201);
      const changed = await server.request('PATCH', `/webhooks/${endpoint.body.data.id}`, {
        token,
        body: { url },
      });
      expect(changed.status).toBe(422);
      expect(changed.body.errors.url[0]).toContain(why);
    });

    it('refuses one at delivery, stored before the rule', async () => {
      const endpoint = await server.request('POST', '/webhooks', {
        token,
        body: { url: 'https://93.184.216.34/hooks', events: ['*'] },
      });
      await server.app.services.storage.db
        .updateTable('webhook_endpoints')
        .set({ url: 'https://[64:ff9b::7f00:1]:8443/hooks' })
        .where('id', '=', endpoint.body.data.id)
        .execute();
      await server.request('POST', `/webhooks/${endpoint.body.data.id}/test`, { token });
      await dispatch(server);
      const [delivery] = await deliveriesOf(server, token, endpoint.body.data.id);
      expect(delivery!.last_error).toBe(
        '64:ff9b::7f00:1, NAT64 for 127.0.0.1 is a loopback address; refused (--webhooks-allow-private)',
      );
    });
  },
);
