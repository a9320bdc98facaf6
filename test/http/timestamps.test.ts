import { describe, expect, it } from 'vitest';
import { isoNow } from '../../server/time.ts';

// The API writes every timestamp as ISO 8601 UTC to the second; `isoNow` keeps the text of
// the last second it was asked for, so these prove that the kept text never outlives its
// second, in either direction of the clock.
describe('isoNow', () => {
  it('writes the second, in UTC, without fractions', () => {
    expect(isoNow(new Date('2026-11-22T10:00:00.999Z'))).toBe('2026-11-22T10:00:00Z');
  });

  it('answers each second with its own text, forwards, backwards and again', () => {
    const seconds = [
      '2026-11-22T10:00:00.100Z',
      '2026-11-22T10:00:00.900Z',
      '2026-11-22T10:00:01.000Z',
      '2026-11-22T09:59:59.999Z',
      '2026-11-22T10:00:00.500Z',
      '1970-01-01T00:00:00.000Z',
    ].map((text) => isoNow(new Date(text)));
    expect(seconds).toEqual([
      '2026-11-22T10:00:00Z',
      '2026-11-22T10:00:00Z',
      '2026-11-22T10:00:01Z',
      '2026-11-22T09:59:59Z',
      '2026-11-22T10:00:00Z',
      '1970-01-01T00:00:00Z',
    ]);
  });

  it('refuses an invalid date as toISOString does, even after a valid one', () => {
    isoNow(new Date('2026-11-22T10:00:00Z'));
    expect(() => isoNow(new Date(Number.NaN))).toThrow(RangeError);
  });
});
