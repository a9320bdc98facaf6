import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectUsageError,
  ok,
  scratchDir,
  shopdesk,
  shopdeskProcess,
  shopdeskWith,
} from '../helpers/shopdesk-cli.ts';

/**
 * What the CLI refuses before it writes anything (docs/reference.md, operator CLI): one line
 * on stderr, exit 2, no database made; and what it says to an old Node started by hand.
 */

const dir = scratchDir();

describe('serve refuses what it cannot use, before it writes anything', () => {
  it.each([
    ['--port 99999', ['--port', '99999'], /--port must be a whole number from 0 to 65535/],
    ['--port -1', ['--port', '-1'], /--port/],
    ['--port abc', ['--port', 'abc'], /--port/],
    ['--cors-origin with a path', ['--cors-origin', 'https://shop.example/app'], /--cors-origin/],
    ['--public-url without a scheme', ['--public-url', 'shop.example'], /--public-url must be/],
  ])('%s: exit 2, one line, no database', async (_what, args, message) => {
    const db = join(dir, `refused-${args.join('')}.sqlite`.replace(/[^\w.-]/g, '_'));
    expectUsageError(await shopdesk('serve', '--db', db, ...args), message);
    expect(existsSync(db)).toBe(false);
  });

  it.each([
    ['SHOPDESK_PORT', { SHOPDESK_PORT: '70000' }],
    ['SHOPDESK_CORS_ORIGIN', { SHOPDESK_CORS_ORIGIN: 'shop.example' }],
    ['SHOPDESK_PUBLIC_URL', { SHOPDESK_PUBLIC_URL: 'https://shop.example/?x=1' }],
    ['SHOPDESK_TRUST_PROXY', { SHOPDESK_TRUST_PROXY: 'yes' }],
  ])('a bad %s: exit 2, one line, no database', async (name, env) => {
    const db = join(dir, `refused-${name}.sqlite`);
    expectUsageError(await shopdeskWith(env, 'serve', '--db', db), new RegExp(name));
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
      { SHOPDESK_DB: join(folder, 'x.sqlite') },
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
    const run = await shopdeskProcess({ cwd }, 'company', 'create', '--name', 'Default');
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
    const run = await shopdeskProcess(oldNode(), 'company', 'create', '--name', 'Old');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^shopdesk needs Node\.js 22\.19 or newer; this is v\d+\./);
    expect(run.stderr).toContain('`npx shopdesk …` or `npm start`');
  });
});
