import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvironment } from '../../server/config.ts';
import { printerChanges } from '../../server/printing/agents/agent-events.ts';
import { nextDelayMs, retryDelaysMs } from '../../server/webhooks/retry-schedule.ts';
import { resolveSecretKey, secretKeyFileOf } from '../../server/webhooks/secret-key.ts';

describe('the retry schedule', () => {
  it('spreads each delay by ±20 % and ends after the seventh retry', () => {
    retryDelaysMs.forEach((delay, index) => {
      expect(nextDelayMs(index + 1, () => 0)).toBe(delay * 0.8);
      const longest = nextDelayMs(index + 1, () => 0.999_999)!;
      expect(longest).toBeLessThanOrEqual(delay * 1.2);
      expect(longest).toBeGreaterThan(delay * 1.199);
    });
    expect(nextDelayMs(retryDelaysMs.length + 1)).toBeUndefined();
    expect(retryDelaysMs.map((ms) => ms / 1000)).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
  });
});

describe('printer.state_changed: what changed between two reports', () => {
  it('compares each printer by name, field by field, whatever fields it reports', () => {
    const before = [
      { name: 'A', is_default: true, state: 'idle', reasons: ['none'] },
      { name: 'B', is_default: false },
      { name: 'C', is_default: false },
    ];
    const after = [
      { reasons: ['none'], state: 'idle', is_default: true, name: 'A' },
      { name: 'B', is_default: false, state: 'stopped', reasons: ['media-empty'] },
      { name: 'D', is_default: false },
    ];
    expect(printerChanges(before, after)).toEqual([
      { name: 'B', previous: before[1], printer: after[1] },
      { name: 'D', previous: null, printer: after[2] },
      { name: 'C', previous: before[2], printer: null },
    ]);
  });
});

describe('the secret key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('comes from SHOPDESK_SECRET_KEY when set: 32 bytes of base64, or the start fails', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(readEnvironment({ SHOPDESK_SECRET_KEY: key }).SHOPDESK_SECRET_KEY).toBe(key);
    expect(() => readEnvironment({ SHOPDESK_SECRET_KEY: 'c2hvcnQ=' })).toThrow(
      /SHOPDESK_SECRET_KEY: must be 32 bytes in base64/,
    );
    const resolved = resolveSecretKey(key, { kind: 'sqlite', file: join(dir, 'x.sqlite') });
    expect(resolved).toEqual({ key: Buffer.alloc(32, 1), source: 'environment' });
  });

  it('is generated beside the SQLite file on first start, then read back', () => {
    const target = { kind: 'sqlite' as const, file: join(dir, 'a', 'shop.sqlite') };
    const first = resolveSecretKey(undefined, target);
    expect(first.source).toBe('generated');
    expect(first.file).toBe(join(dir, 'a', 'secret.key'));
    const again = resolveSecretKey(undefined, target);
    expect(again.source).toBe('file');
    expect(again.key.equals(first.key)).toBe(true);
  });

  it('refuses a key file that does not hold a key', () => {
    writeFileSync(join(dir, 'secret.key'), 'not a key\n');
    expect(() =>
      resolveSecretKey(undefined, { kind: 'sqlite', file: join(dir, 'b.sqlite') }),
    ).toThrow(/secret\.key: the secret key must be 32 bytes in base64/);
  });

  it('goes to ./data with PostgreSQL, unless the environment gives it', () => {
    const postgres = { kind: 'postgres' as const, url: 'postgres://x/y' };
    expect(secretKeyFileOf(postgres)).toBe(join('data', 'secret.key'));
    expect(secretKeyFileOf({ kind: 'sqlite', file: ':memory:' })).toBeUndefined();
    const key = Buffer.alloc(32, 2).toString('base64');
    expect(resolveSecretKey(key, postgres).source).toBe('environment');
  });
});
