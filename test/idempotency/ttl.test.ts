import { describe, expect, it } from 'vitest';
import { durationSeconds, readEnvironment } from '../../server/config.ts';

/** `--idempotency-ttl` and `SHOPDESK_IDEMPOTENCY_TTL` (docs/http.md, idempotency keys). */
describe('idempotency TTL', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    ['15m', 900],
    ['24h', 86_400],
    ['7d', 604_800],
    [' 2h ', 7200],
  ])('%s is %d seconds', (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
  });

  it.each(['', '0', '0h', '24x', '-5', '1.5h', 'h', '1e3'])('%j is refused', (text) => {
    expect(durationSeconds(text)).toBeUndefined();
  });

  it('is read from the environment once, and a bad value names the variable', () => {
    expect(readEnvironment({ SHOPDESK_IDEMPOTENCY_TTL: '48h' }).SHOPDESK_IDEMPOTENCY_TTL).toBe(
      172_800,
    );
    expect(() => readEnvironment({ SHOPDESK_IDEMPOTENCY_TTL: 'soon' })).toThrow(
      /SHOPDESK_IDEMPOTENCY_TTL/,
    );
    expect(() => readEnvironment({ SHOPDESK_TEST_FAULT: 'anything' })).toThrow(
      /SHOPDESK_TEST_FAULT/,
    );
  });
});
