import { describe, expect, it } from 'vitest';
import { divideHalfUp, lineTotalCents, toBasisPoints } from '../../server/offers/pricing.ts';
import { toCents } from '../../shared/money.ts';
import { toMilli } from '../../shared/quantity.ts';

describe('offer arithmetic in integer cents', () => {
  it.each([
    // [unit price, quantity, discount %, expected line total]
    [0.1, 1, 0, 0.1],
    [0.2, 1, 0, 0.2],
    [10, 3, 0, 30],
    [0.05, 0.5, 0, 0.03], // 2.5 cents → 3 (half-up, not half-even)
    [0.01, 0.5, 0, 0.01], // 0.5 cent → 1
    [0.01, 0.499, 0, 0], // 0.499 cent → 0
    [0.2, 1, 12.5, 0.18], // 17.5 cents → 18
    [19.99, 3, 10, 53.97], // 59.97 × 0.9 = 53.973
    [1.15, 1, 50, 0.58], // 57.5 cents → 58
    [100, 1, 100, 0],
    // cents × milli × basis points is ~1e19 here, far past 2^53: exact only in BigInt
    [99_999_999.99, 99.999, 0, 9_999_899_999],
  ])('%d × %d less %d %% = %d', (unit, quantity, percent, expected) => {
    const cents = lineTotalCents(toCents(unit), toMilli(quantity), toBasisPoints(percent));
    expect(cents).toBe(Math.round(expected * 100));
  });

  it('0.1 + 0.2 is 0.3, and a thousand lines of 0.1 are 100', () => {
    const lines = [0.1, 0.2].map((unit) => lineTotalCents(toCents(unit), 1000, 0));
    expect(lines.reduce((a, b) => a + b, 0) / 100).toBe(0.3);
    let cents = 0;
    for (let i = 0; i < 1000; i++) cents += lineTotalCents(toCents(0.1), 1000, 0);
    expect(cents / 100).toBe(100);
  });

  it('rounds halves up', () => {
    expect(divideHalfUp(5n, 10n)).toBe(1n);
    expect(divideHalfUp(4n, 10n)).toBe(0n);
    expect(divideHalfUp(15n, 10n)).toBe(2n);
    expect(divideHalfUp(25n, 10n)).toBe(3n);
  });
});
