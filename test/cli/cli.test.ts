import {
  type ChildProcessWithoutNullStreams,
  execFile,
  spawn,
  spawnSync,
} from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissions as allPermissions } from '../../shared/permissions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The `shopdesk` operator command line, run as operators run it (product.md). */

const bin = resolve(import.meta.dirname, '../../bin/shopdesk.js');
const dir = mkdtempSync(join(tmpdir(), 'shopdesk-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment without anything that would point the CLI at another database. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SHOPDESK_LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.SHOPDESK_DB;
  delete env.SHOPDESK_PORT;
  return env;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function shopdesk(...args: string[]): Promise<Run> {
  return shopdeskWith({}, ...args);
}

function shopdeskWith(
  how: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string; nodeArgs?: string[] },
  ...args: string[]
): Promise<Run> {
  return new Promise((done) => {
    execFile(
      how.node ?? process.execPath,
      [...(how.nodeArgs ?? []), bin, ...args],
      { env: { ...cleanEnv(), ...how.env }, cwd: how.cwd, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** A usage error as the CLI promises it: exit code 2, one line on stderr, nothing on stdout. */
function expectUsageError(run: Run, message: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^error: [^\n]+\n$/);
  expect(run.stderr).toMatch(message);
}

async function ok(...args: string[]): Promise<string> {
  const run = await shopdesk(...args);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

function countRows(file: string): Record<string, number> {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    for (const table of ['companies', 'tokens', 'warehouses', 'categories', 'customers']) {
      counts[table] = (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    }
    return counts;
  } finally {
    db.close();
  }
}

function revokedAt(file: string, id: number): string | null {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (
      db.prepare('select revoked_at from tokens where id = ?').get(id) as {
        revoked_at: string | null;
      }
    ).revoked_at;
  } finally {
    db.close();
  }
}

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
    const token = (
      await ok(
        'token',
        'create',
        '--company',
        companyId,
        '--permissions',
        'customers.read',
        '--expires-in',
        '2',
        '--db',
        db,
      )
    ).trim();
    const me = await server.request('GET', '/me', { token });
    expect(me.status).toBe(200);
    const expiresAt = Date.parse(me.body.data.token.expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 2 * 86_400_000))).toBeLessThan(60_000);
  });

  it('token list shows every token of the company, never a secret', async () => {
    const secret = (
      await ok(
        'token',
        'create',
        '--company',
        companyId,
        '--permissions',
        'offers.read',
        '--name',
        'listed',
        '--db',
        db,
      )
    ).trim();
    const out = await ok('token', 'list', '--company', companyId, '--db', db);
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.some((line) => line.includes('listed') && line.includes('offers.read'))).toBe(
      true,
    );
    expect(out).not.toContain(secret);
    expect(out).not.toMatch(/sd_[\w-]{20,}/);
    // Nor the stored hash: it is the secret's only stand-in.
    expect(out).not.toMatch(/\b[0-9a-f]{64}\b/);
  });

  it('token revoke takes effect at once on a running server that has cached the token', async () => {
    const token = (
      await ok(
        'token',
        'create',
        '--company',
        companyId,
        '--permissions',
        'customers.read',
        '--db',
        db,
      )
    ).trim();
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

describe('bad arguments: exit code 2, one line on stderr, nothing written', () => {
  const db = join(dir, 'bad.sqlite');
  let before: Record<string, number>;

  beforeAll(async () => {
    await ok('company', 'create', '--name', 'Única', '--db', db);
    await ok('warehouse', 'create', '--company', '1', '--code', 'W1', '--db', db);
    before = countRows(db);
  });

  it.concurrent.each([
    ['company create without --name', ['company', 'create']],
    [
      'token create with an unknown permission',
      ['token', 'create', '--company', '1', '--permissions', 'customers.read,customers.fly'],
    ],
    [
      'token create with an empty permission list',
      ['token', 'create', '--company', '1', '--permissions', ','],
    ],
    [
      'token create with --company abc',
      ['token', 'create', '--company', 'abc', '--permissions', '*'],
    ],
    [
      'token create for an unknown company',
      ['token', 'create', '--company', '999', '--permissions', '*'],
    ],
    [
      'token create with --expires-in 0',
      ['token', 'create', '--company', '1', '--permissions', '*', '--expires-in', '0'],
    ],
    ['token revoke of an unknown token', ['token', 'revoke', '999']],
    [
      'warehouse create for an unknown company',
      ['warehouse', 'create', '--company', '999', '--code', 'W2'],
    ],
    [
      'warehouse create with a taken code',
      ['warehouse', 'create', '--company', '1', '--code', 'W1'],
    ],
    [
      'warehouse create with a code of 21',
      ['warehouse', 'create', '--company', '1', '--code', 'W'.repeat(21)],
    ],
    ['category create without --name', ['category', 'create', '--company', '1']],
    ['an unknown command', ['frobnicate']],
    [
      'both --db and --database-url',
      ['company', 'create', '--name', 'X', '--database-url', 'postgres://127.0.0.1/x'],
    ],
  ])('%s', async (_what, args) => {
    const run = await shopdesk(...args, '--db', db);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const stderr = run.stderr.replace(/\n$/, '');
    expect(stderr.length).toBeGreaterThan(0);
    expect(stderr).not.toContain('\n');
    expect(stderr).not.toMatch(/\bat \S+:\d+/);
    expect(countRows(db)).toEqual(before);
  });
});

describe('a --db that is not there', () => {
  it.concurrent.each([
    ['token create', ['token', 'create', '--company', '1', '--permissions', '*']],
    ['token list', ['token', 'list', '--company', '1']],
    ['warehouse create', ['warehouse', 'create', '--company', '1', '--code', 'W']],
  ])('%s refuses it (exit 2) and creates no file', async (_what, args) => {
    const missing = join(dir, 'typo', `missing-${args[0]}-${args[1]}.sqlite`);
    const run = await shopdesk(...args, '--db', missing);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe(
      `error: no database at ${missing}; create a company there first`,
    );
    expect(existsSync(missing)).toBe(false);
  });
});

/** Starts `shopdesk serve` and waits for its one line; returns the line and the process. */
async function startServe(args: string[]): Promise<{
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: cleanEnv(),
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^ShopDesk API listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/.exec(out);
      if (line) {
        clearTimeout(timer);
        done(line[1]!);
      }
    });
    child.once('exit', () => fail(new Error(`serve exited: ${err}`)));
  });
  return { child, url, stdout: () => out, exited };
}

describe('serve', () => {
  it('prints one line with the URL, serves, and on SIGTERM finishes the in-flight request and exits 0', async () => {
    const db = join(dir, 'serve.sqlite');
    await ok('company', 'create', '--name', 'Serve Co', '--db', db);
    const token = (
      await ok('token', 'create', '--company', '1', '--permissions', '*', '--db', db)
    ).trim();
    const serve = await startServe(['--db', db]);
    try {
      const health = await fetch(`${serve.url}/api/v1/health`);
      expect(health.status).toBe(200);
      expect(serve.stdout()).toMatch(
        /^ShopDesk API listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1\n$/,
      );

      const keepAlive = new Agent({ keepAlive: true });
      // A create whose body is still on its way when the signal comes.
      const body = JSON.stringify({ name: 'Em voo', type: 'F', code: 'INFLIGHT' });
      let sendRest!: () => void;
      const inFlight = new Promise<{ status: number; text: string }>((done, fail) => {
        const req = httpRequest(
          `${serve.url}/api/v1/customers`,
          {
            method: 'POST',
            // Keep-alive, as integrators' clients are: the server must still stop at once.
            agent: keepAlive,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            res.on('end', () => done({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', fail);
        req.write(body.slice(0, 10));
        req.flushHeaders();
        sendRest = () => req.end(body.slice(10));
      });
      // Let the server take the request in before the signal (generous: CI machines are busy).
      await new Promise((wait) => setTimeout(wait, 1000));
      serve.child.kill('SIGTERM');
      await new Promise((wait) => setTimeout(wait, 300));
      sendRest();
      const answer = await inFlight;
      const answeredAt = Date.now();
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.text).data.code).toBe('INFLIGHT');
      expect(await serve.exited).toBe(0);
      // Not held open by the idle kept-alive connection until the forced close (10 s).
      expect(Date.now() - answeredAt).toBeLessThan(5000);
      keepAlive.destroy();
      // Still only the one line on stdout.
      expect(serve.stdout().trim().split('\n')).toHaveLength(1);
      expect(countRows(db).customers).toBe(1);
    } finally {
      serve.child.kill('SIGKILL');
    }
  });

  it('--demo on a fresh database prints the docs and TOKEN=/AGENT_TOKEN= lines that work; a second start prints no token', async () => {
    const db = join(dir, 'demo.sqlite');
    const first = await startServe(['--db', db, '--demo']);
    let admin: string;
    let agent: string;
    try {
      const deadline = Date.now() + 10_000;
      while (!/^AGENT_TOKEN=sd_\S+$/m.test(first.stdout()) && Date.now() < deadline) {
        await new Promise((wait) => setTimeout(wait, 50));
      }
      // Lines a shell takes as they are: the README's commands use $TOKEN and $AGENT_TOKEN.
      admin = /^TOKEN=(sd_[\w-]+)$/m.exec(first.stdout())![1]!;
      agent = /^AGENT_TOKEN=(sd_[\w-]+)$/m.exec(first.stdout())![1]!;
      expect(first.stdout().split('\n')[1]).toBe(
        `API docs (try it out in the browser): ${first.url}/api/v1/docs`,
      );
      const warehouses = new BetterSqlite3(db, { readonly: true });
      try {
        expect(warehouses.prepare('select company_id, code from warehouses').all()).toEqual([
          { company_id: 1, code: 'MAIN' },
        ]);
      } finally {
        warehouses.close();
      }
      const me = await fetch(`${first.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(me.status).toBe(200);
      expect((await me.json()).data.token.permissions.sort()).toEqual([...allPermissions].sort());
      const agentMe = await fetch(`${first.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${agent}` },
      });
      expect((await agentMe.json()).data.token.permissions).toEqual(['printing.agent']);
      const forbidden = await fetch(`${first.url}/api/v1/customers`, {
        headers: { authorization: `Bearer ${agent}` },
      });
      expect(forbidden.status).toBe(403);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
    } finally {
      first.child.kill('SIGKILL');
    }

    const second = await startServe(['--db', db, '--demo']);
    try {
      // The tokens of the first start still work on the second.
      const me = await fetch(`${second.url}/api/v1/me`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(me.status).toBe(200);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(second.stdout()).not.toMatch(/sd_/);
      // The URL, the docs, and how to issue a token now that the first ones are not shown.
      expect(second.stdout().trim().split('\n')).toHaveLength(3);
      expect(second.stdout()).toContain('npx shopdesk token create --company 1');
      expect(countRows(db).companies).toBe(1);
      expect(countRows(db).tokens).toBe(2);
    } finally {
      second.child.kill('SIGKILL');
    }
  });
});

describe('start-up', () => {
  it('runs the same without native type stripping (the tsx fallback of older Node versions)', async () => {
    const db = join(dir, 'fallback.sqlite');
    const run = await new Promise<Run>((done) => {
      execFile(
        process.execPath,
        [
          '--no-experimental-strip-types',
          bin,
          'company',
          'create',
          '--name',
          'Via tsx',
          '--db',
          db,
        ],
        // tsx keeps a cache in the temporary folder: the test's own, removed afterwards.
        { env: { ...cleanEnv(), TMPDIR: dir }, timeout: 20_000 },
        (error, stdout, stderr) => {
          done({ code: error ? -1 : 0, stdout, stderr });
        },
      );
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('1\n');
    expect(await ok('company', 'create', '--name', 'Native', '--db', db)).toBe('2\n');
  });
});

describe('serve refuses what it cannot use, before it writes anything', () => {
  it.each([
    ['--port 99999', ['--port', '99999'], /--port must be a whole number from 0 to 65535/],
    ['--port -1', ['--port', '-1'], /--port/],
    ['--port abc', ['--port', 'abc'], /--port/],
    ['--cors-origin with a path', ['--cors-origin', 'https://shop.example/app'], /--cors-origin/],
  ])('%s: exit 2, one line, no database', async (_what, args, message) => {
    const db = join(dir, `refused-${args.join('')}.sqlite`.replace(/[^\w.-]/g, '_'));
    expectUsageError(await shopdesk('serve', '--db', db, ...args), message);
    expect(existsSync(db)).toBe(false);
  });

  it.each([
    ['SHOPDESK_PORT', { SHOPDESK_PORT: '70000' }],
    ['SHOPDESK_CORS_ORIGIN', { SHOPDESK_CORS_ORIGIN: 'shop.example' }],
  ])('a bad %s: exit 2, one line, no database', async (name, env) => {
    const db = join(dir, `refused-${name}.sqlite`);
    expectUsageError(await shopdeskWith({ env }, 'serve', '--db', db), new RegExp(name));
    expect(existsSync(db)).toBe(false);
  });

  it('a busy port: exit 2, one line, and the database is neither created nor its folder made', async () => {
    const busy = createNetServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = String((busy.address() as AddressInfo).port);
    try {
      const folder = join(dir, 'busy-port');
      const db = join(folder, 'shop.sqlite');
      const run = await shopdesk('serve', '--port', port, '--db', db, '--create');
      expectUsageError(run, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
      expect(existsSync(folder)).toBe(false);
    } finally {
      await new Promise((done) => busy.close(done));
    }
  });
});

describe('a --db in a folder that is not there', () => {
  it.each([
    ['serve', ['serve', '--port', '0']],
    ['company create', ['company', 'create', '--name', 'Typo']],
  ])('%s refuses it (exit 2) and makes no folder', async (_what, args) => {
    const folder = join(dir, 'no-such-dir', args[0]!);
    const run = await shopdesk(...args, '--db', join(folder, 'x.sqlite'));
    expectUsageError(run, /no folder .*no-such-dir.*; check --db, or add --create to make it/);
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  });

  it('SHOPDESK_DB is held to the same rule', async () => {
    const folder = join(dir, 'env-typo');
    const run = await shopdeskWith(
      { env: { SHOPDESK_DB: join(folder, 'x.sqlite') } },
      'company',
      'create',
      '--name',
      'Typo',
    );
    expectUsageError(run, /check SHOPDESK_DB/);
    expect(existsSync(folder)).toBe(false);
  });

  it('--create makes the folder', async () => {
    const db = join(dir, 'made', 'by', 'create', 'x.sqlite');
    expect(await ok('company', 'create', '--name', 'Made', '--db', db, '--create')).toBe('1\n');
    expect(existsSync(db)).toBe(true);
  });

  it('the default path gets its folder without --create', async () => {
    const cwd = mkdtempSync(join(dir, 'default-'));
    const run = await shopdeskWith({ cwd }, 'company', 'create', '--name', 'Default');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(cwd, 'data', 'shopdesk.sqlite'))).toBe(true);
  });
});

describe('started by hand with a Node older than 22.19', () => {
  /**
   * The machine's own Node when it is old (Debian's Node 20 here); otherwise a stand-in: the
   * current Node told by a preload that it is v20.0.0 (a fake, for machines without an old Node).
   */
  function oldNode(): { node?: string; nodeArgs?: string[] } {
    for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
      const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout ?? '';
      const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
      if (major! > 0 && (major! < 22 || (major === 22 && minor! < 19))) return { node: candidate };
    }
    const pretend =
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.0.0' } });" +
      "Object.defineProperty(process, 'version', { value: 'v20.0.0' });";
    return { nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`] };
  }

  it('says how to run it instead (npx shopdesk, npm start), exit 1', async () => {
    const run = await shopdeskWith(oldNode(), 'company', 'create', '--name', 'Old');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^shopdesk needs Node\.js 22\.19 or newer; this is v\d+\./);
    expect(run.stderr).toContain('`npx shopdesk …` or `npm start`');
  });
});
