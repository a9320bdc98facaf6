import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { humanLine } from '../../server/log-format.ts';
import { bin, cleanEnv, expectUsageError, scratchDir, shopdesk } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The command line as a new user meets it: `--version`, usage errors that say where the
 * options are explained, and `serve` on a terminal printing lines a person reads, not JSON
 * (which it still writes to a file, a pipe or a service manager).
 */

const dir = scratchDir();
const { version } = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'),
) as { version: string };

describe('shopdesk --version', () => {
  it.each([['--version'], ['-V']])('%s prints the version alone', async (flag) => {
    const run = await shopdesk(flag);
    expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('leaves --version after a command to that command (release add --version 1.2.0)', async () => {
    const db = join(dir, 'release.sqlite');
    await shopdesk('company', 'create', '--name', 'Shop', '--db', db);
    const run = await shopdesk(
      'release',
      'add',
      '--file',
      join(dir, 'missing.AppImage'),
      '--version',
      '1.2.0',
      '--platform',
      'linux',
      '--db',
      db,
    );
    // It got as far as the file: the version was the release's.
    expectUsageError(run, /--file \S+missing\.AppImage is not a file$/m);
  });
});

describe('a usage error names the --help that explains it', () => {
  it.each([
    ['an unknown command', ['frobnicate'], 'shopdesk'],
    [
      'an unknown option',
      ['company', 'create', '--name', 'x', '--nmae', 'y'],
      'shopdesk company create',
    ],
    ['a required option left out', ['token', 'create', '--company', '1'], 'shopdesk token create'],
    ['a value refused by its parser', ['token', 'list', '--company', 'abc'], 'shopdesk token list'],
    [
      'two options that exclude each other',
      ['token', 'list', '--company', '1', '--db', 'x', '--database-url', 'postgres://h/d'],
      'shopdesk token list',
    ],
  ])('%s', async (_what, args, command) => {
    const run = await shopdesk(...args);
    expectUsageError(run, new RegExp(` \\(see: ${command} --help\\)\\n$`));
  });

  it('but not where --help says nothing of the problem: a database that is not there', async () => {
    const missing = join(dir, 'none.sqlite');
    const run = await shopdesk('token', 'list', '--company', '1', '--db', missing);
    expect(run.stderr).toBe(`error: no database at ${missing}; create a company there first\n`);
  });

  it('nor a configuration file’s problems, each on its own line naming the file', async () => {
    const config = join(dir, 'agent.json');
    writeFileSync(config, JSON.stringify({ servr: 'https://shop.example' }));
    const run = await shopdesk('agent', '--config', config, '--state-dir', join(dir, 'state'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^error: ${config}: servr: is not a setting`));
    expect(run.stderr).not.toContain('--help');
  });
});

describe('the log as a person reads it (--log-format human)', () => {
  it('writes a request as what, where and how it went, then the other fields', () => {
    const time = new Date(2026, 10, 25, 18, 2, 14).getTime();
    const line = JSON.stringify({
      level: 30,
      time,
      req_id: 'r-1',
      method: 'GET',
      path: '/api/v1/health',
      status: 200,
      ms: 1.2,
      msg: 'request',
    });
    expect(humanLine(line)).toBe('18:02:14 INFO  GET /api/v1/health 200 1.2 ms req_id=r-1\n');
  });

  it('quotes values with spaces, and writes an error’s stack on the lines below', () => {
    const line = JSON.stringify({
      level: 50,
      time: new Date(2026, 0, 1, 9, 5, 0).getTime(),
      path: '/a b',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' },
      msg: 'unexpected error',
    });
    expect(humanLine(line)).toBe(
      '09:05:00 ERROR unexpected error path="/a b" err={"type":"Error","message":"boom"}\n' +
        '    Error: boom\n' +
        '        at x (y.ts:1:1)\n',
    );
  });

  it('passes a line that is no JSON through as it is', () => {
    expect(humanLine('not json\n')).toBe('not json\n');
  });
});

/**
 * `shopdesk serve` on a real terminal: `script` gives it one (a pseudo-terminal for its
 * stdout and stderr), as `npm start` in a shell has.
 */
describe('serve on a terminal', () => {
  async function onTerminal(args: string[]): Promise<string> {
    const db = join(dir, `tty-${args.join('') || 'default'}.sqlite`);
    const command = [process.execPath, bin, 'serve', '--port', '0', '--db', db, '--create', ...args]
      .map((word) => `'${word}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...cleanEnv(), SHOPDESK_LOG_LEVEL: 'info' },
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise((done) => child.once('exit', done));
    try {
      await waitFor(
        'listening logged',
        () => /listening/.test(out.replace(/^.*ShopDesk API listening on.*$/m, '')),
        30_000,
      );
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    return out.replaceAll('\r\n', '\n');
  }

  it('prints lines a person reads: no JSON among them', async () => {
    const out = await onTerminal([]);
    expect(out).toMatch(/^ShopDesk API listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/m);
    expect(out).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}listening url=http:\/\/127\.0\.0\.1:\d+\/api\/v1 docs=/m,
    );
    expect(out).not.toMatch(/^\{/m);
  });

  it('logs JSON when asked, terminal or not', async () => {
    const out = await onTerminal(['--log-format', 'json']);
    const logged = out.split('\n').filter((line) => line.startsWith('{'));
    expect(logged.map((line) => JSON.parse(line).msg)).toContain('listening');
  });
});
