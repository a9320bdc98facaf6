import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { countRows, ok, scratchDir, shopdesk } from '../helpers/shopdesk-cli.ts';

/** What `shopdesk` does with bad arguments: refuses them (exit code 2) and writes nothing. */

const dir = scratchDir();

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
    [
      'token create with --agent that is not a UUID',
      ['token', 'create', '--company', '1', '--permissions', 'printing.agent', '--agent', 'till-1'],
    ],
    [
      'token create with --agent for a token that is no agent token',
      [
        'token',
        'create',
        '--company',
        '1',
        '--permissions',
        'customers.read',
        '--agent',
        '0b6f3c52-5d1e-4e7a-9a57-3c1de1f0a001',
      ],
    ],
    [
      'token create with --routes for a token bound to no agent',
      [
        'token',
        'create',
        '--company',
        '1',
        '--permissions',
        'printing.agent',
        '--routes',
        'labels',
      ],
    ],
    [
      'token create with --routes naming no route',
      [
        'token',
        'create',
        '--company',
        '1',
        '--permissions',
        'printing.agent',
        '--agent',
        '0b6f3c52-5d1e-4e7a-9a57-3c1de1f0a001',
        '--routes',
        'Labels!',
      ],
    ],
    [
      'token create with --company past the largest id',
      ['token', 'create', '--company', '2147483648', '--permissions', '*'],
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
    ['serve with --idempotency-ttl 0', ['serve', '--port', '0', '--idempotency-ttl', '0']],
    ['serve with --idempotency-ttl 24x', ['serve', '--port', '0', '--idempotency-ttl', '24x']],
    ['serve with --hold-limit 24x', ['serve', '--port', '0', '--hold-limit', '24x']],
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
