import { Agent } from 'node:http';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { permissions as allPermissions } from '../../shared/permissions.ts';
import { listenerClosed, pendingRequest } from '../helpers/pending-request.ts';
import { startServe } from '../helpers/serve-process.ts';
import { countRows, ok, scratchDir, shopdeskProcess } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * `shopdesk serve` as operators run it (its one line, serving, a clean stop), and how the
 * CLI starts without native type stripping.
 */

const dir = scratchDir();

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

      // A create whose body is still on its way when the signal comes, on a kept-alive
      // connection, as integrators' clients keep them: the server must still stop at once.
      const keepAlive = new Agent({ keepAlive: true });
      const inFlight = pendingRequest(
        serve.url,
        '/customers',
        token,
        { name: 'Em voo', type: 'F', code: 'INFLIGHT' },
        { agent: keepAlive },
      );
      await inFlight.accepted;
      serve.child.kill('SIGTERM');
      await listenerClosed(serve.url);
      inFlight.finish();
      const answer = await inFlight.answer;
      const answeredAt = Date.now();
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body).data.code).toBe('INFLIGHT');
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
      // The console's sign-in is the demo's last line (its password is hashed after the
      // tokens are printed).
      await waitFor('the Console sign-in line', () => /^Console sign-in: /m.test(first.stdout()));
      // Lines a shell takes as they are: the README's commands use $TOKEN and $AGENT_TOKEN.
      admin = /^TOKEN=(sd_[\w-]+)$/m.exec(first.stdout())![1]!;
      agent = /^AGENT_TOKEN=(sd_[\w-]+)$/m.exec(first.stdout())![1]!;
      expect(first.stdout().split('\n')[1]).toBe(
        `API docs (try it out in the browser): ${first.url}/api/v1/docs`,
      );
      expect(first.stdout().split('\n')[2]).toBe(
        `Console (open it in the browser): ${first.url}/console/`,
      );
      expect(first.stdout()).toMatch(
        /^Console sign-in: E-mail owner@demo\.example, Password \S{16}$/m,
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
      // The URL, the docs, the console, and how to issue a token now that the first ones are
      // not shown.
      expect(second.stdout().trim().split('\n')).toHaveLength(4);
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
    // tsx keeps a cache in the temporary folder: the test's own, removed afterwards.
    const run = await shopdeskProcess(
      { nodeArgs: ['--no-experimental-strip-types'], env: { TMPDIR: dir } },
      'company',
      'create',
      '--name',
      'Via tsx',
      '--db',
      db,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('1\n');
    expect(await ok('company', 'create', '--name', 'Native', '--db', db)).toBe('2\n');
  });
});
