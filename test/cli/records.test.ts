import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissions as allPermissions } from '../../shared/permissions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ok, revokedAt, scratchDir, shopdesk, tokenByCli } from '../helpers/shopdesk-cli.ts';

/**
 * The records an operator makes with `shopdesk` (docs/reference.md: the operator CLI), as
 * a running server on the same database sees them.
 */

const dir = scratchDir();

describe('records: company, token, warehouse, category', () => {
  const db = join(dir, 'records.sqlite');
  let companyId: string;
  let server: TestServer;

  beforeAll(async () => {
    const out = await ok('company', 'create', '--name', 'Loja CLI', '--db', db);
    // "its id, alone": nothing else on stdout.
    expect(out).toMatch(/^\d+\n$/);
    companyId = out.trim();
    // A server on the same SQLite file, as in production.
    server = await startTestServer({ database: { kind: 'sqlite', file: db } });
  });
  afterAll(() => server?.close());

  it('company create prints the id alone; a second company gets the next id', async () => {
    const second = await ok('company', 'create', '--name', 'Outra', '--db', db);
    expect(second).toBe(`${Number(companyId) + 1}\n`);
  });

  it('token create prints the token alone, and it works against the server', async () => {
    const out = await ok(
      'token',
      'create',
      '--company',
      companyId,
      '--permissions',
      'customers.read,customers.create',
      '--name',
      'erp',
      '--db',
      db,
    );
    expect(out).toMatch(/^sd_[\w-]{20,}\n$/);
    const token = out.trim();
    const me = await server.request('GET', '/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.data.company).toEqual({ id: Number(companyId), name: 'Loja CLI' });
    expect(me.body.data.token).toMatchObject({
      name: 'erp',
      permissions: ['customers.read', 'customers.create'],
    });
    expect((await server.request('GET', '/customers', { token })).status).toBe(200);
    // Only what was granted.
    const refused = await server.request('PATCH', '/customers/1', { token, body: {} });
    expect(refused.status).toBe(403);
  });

  it('* grants every permission', async () => {
    const token = (
      await ok('token', 'create', '--company', companyId, '--permissions', '*', '--db', db)
    ).trim();
    const me = await server.request('GET', '/me', { token });
    expect(me.status).toBe(200);
    expect([...me.body.data.token.permissions].sort()).toEqual([...allPermissions].sort());
  });

  it('--expires-in sets an expiry that the server enforces', async () => {
    const token = await tokenByCli(companyId, 'customers.read', '--expires-in', '2', '--db', db);
    const me = await server.request('GET', '/me', { token });
    expect(me.status).toBe(200);
    const expiresAt = Date.parse(me.body.data.token.expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 2 * 86_400_000))).toBeLessThan(60_000);
  });

  it('token list shows every token of the company, never a secret', async () => {
    const secret = await tokenByCli(companyId, 'offers.read', '--name', 'listed', '--db', db);
    const out = await ok('token', 'list', '--company', companyId, '--db', db);
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    // A header row names the columns.
    expect(lines[0]).toBe('ID\tNAME\tSTATE\tPERMISSIONS\tAGENT\tROUTES');
    expect(lines.some((line) => line.includes('listed') && line.includes('offers.read'))).toBe(
      true,
    );
    expect(out).not.toContain(secret);
    expect(out).not.toMatch(/sd_[\w-]{20,}/);
    // Nor the stored hash: it is the secret's only stand-in.
    expect(out).not.toMatch(/\b[0-9a-f]{64}\b/);
  });

  it('a command that only reads answers while another process holds the write lock', async () => {
    // The server's writes hold SQLite's write lock a moment at a time; here it is held for
    // the whole command. An up-to-date database is not migrated, so nothing waits for it.
    const writer = new BetterSqlite3(db);
    writer.exec('begin immediate');
    try {
      // Before, the migration check waited SQLite's 5 s for the lock, then failed the command.
      const out = await ok('token', 'list', '--company', companyId, '--db', db);
      expect(out).toMatch(/^ID\tNAME/);
    } finally {
      writer.exec('rollback');
      writer.close();
    }
  });

  it('token create --agent binds the token to that agent: list shows it, the server holds it', async () => {
    const uuid = '0B6F3C52-5D1E-4E7A-9A57-3C1DE1F0A001';
    const token = await tokenByCli(
      companyId,
      'printing.agent',
      '--name',
      'till 1',
      '--agent',
      uuid,
      '--db',
      db,
    );
    const out = await ok('token', 'list', '--company', companyId, '--db', db);
    const line = out.split('\n').find((entry) => entry.includes('till 1'))!;
    expect(line).toMatch(new RegExp(`\tprinting\\.agent\t${uuid.toLowerCase()}\t-$`));
    const register = (id: string) =>
      server.request('POST', '/printing/register', {
        token,
        body: { uuid: id, name: 'Till', hostname: 'till-1', platform: 'linux', version: '0.1.0' },
      });
    expect((await register(uuid)).status).toBe(201);
    expect((await register('0b6f3c52-5d1e-4e7a-9a57-3c1de1f0a002')).status).toBe(403);
  });

  it('token revoke takes effect at once on a running server that has cached the token', async () => {
    const token = await tokenByCli(companyId, 'customers.read', '--db', db);
    const me = await server.request('GET', '/me', { token });
    expect(me.status).toBe(200);
    // Cached now: a second request is served from the cache.
    expect((await server.request('GET', '/customers', { token })).status).toBe(200);
    const out = await ok('token', 'revoke', String(me.body.data.token.id), '--db', db);
    expect(out.trim()).toBe(`revoked token ${me.body.data.token.id}`);
    expect(revokedAt(db, me.body.data.token.id)).toMatch(/Z$/);
    const after = await server.request('GET', '/customers', { token });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // Revoking again: nothing to revoke, a usage error.
    const again = await shopdesk('token', 'revoke', String(me.body.data.token.id), '--db', db);
    expect(again.code).toBe(2);
  });

  it('warehouse create and category create print their ids alone', async () => {
    const warehouse = await ok(
      'warehouse',
      'create',
      '--company',
      companyId,
      '--code',
      'CD-01',
      '--name',
      'Central',
      '--db',
      db,
    );
    expect(warehouse).toMatch(/^\d+\n$/);
    const category = await ok(
      'category',
      'create',
      '--company',
      companyId,
      '--name',
      'Bebidas',
      '--db',
      db,
    );
    expect(category).toMatch(/^\d+\n$/);
    const rows = new BetterSqlite3(db, { readonly: true });
    try {
      expect(
        rows
          .prepare('select company_id, code, name from warehouses where id = ?')
          .get(Number(warehouse)),
      ).toEqual({
        company_id: Number(companyId),
        code: 'CD-01',
        name: 'Central',
      });
      expect(
        rows.prepare('select name from categories where id = ?').get(Number(category)),
      ).toEqual({ name: 'Bebidas' });
    } finally {
      rows.close();
    }
  });
});
