import { describe, expect, it } from 'vitest';
import { isoNow } from '../../server/time.ts';

// The API writes every timestamp as ISO 8601 UTC to the second; `isoNow` keeps the texts of
// the last two seconds it was asked for, so these prove that a kept text never outlives its
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

  it('keeps two seconds apart, as a claim and its lease or a key and its expiry ask', () => {
    const texts = [
      '2026-11-22T10:00:00.100Z',
      '2026-11-23T10:00:00.100Z',
      '2026-11-22T10:00:00.700Z',
      '2026-11-23T10:00:00.700Z',
      '2026-11-22T10:00:01.000Z',
      '2026-11-23T10:00:00.900Z',
      '2026-11-23T10:00:01.000Z',
      '2026-11-22T10:00:00.100Z',
      '2026-11-22T10:00:01.500Z',
    ].map((text) => isoNow(new Date(text)));
    expect(texts).toEqual([
      '2026-11-22T10:00:00Z',
      '2026-11-23T10:00:00Z',
      '2026-11-22T10:00:00Z',
      '2026-11-23T10:00:00Z',
      '2026-11-22T10:00:01Z',
      '2026-11-23T10:00:00Z',
      '2026-11-23T10:00:01Z',
      '2026-11-22T10:00:00Z',
      '2026-11-22T10:00:01Z',
    ]);
  });

  it('refuses an invalid date as toISOString does, even after a valid one', () => {
    isoNow(new Date('2026-11-22T10:00:00Z'));
    expect(() => isoNow(new Date(Number.NaN))).toThrow(RangeError);
  });
});
