import { z } from 'zod';

/**
 * Money travels as JSON numbers with at most two decimals and is computed in integer
 * cents, never in floating point (docs/reference.md).
 */
export const maxMoney = 999_999_999_999.99;

export const moneySchema = z
  .number()
  .min(0)
  .max(maxMoney)
  .refine(hasAtMostTwoDecimals, 'The :attribute field must have at most 2 decimal places.')
  // The rule as JSON Schema writes it, for the OpenAPI document (a refine has no schema).
  .meta({ multipleOf: 0.01 });

/**
 * Whole cents, within what binary floating point adds to `value * 100`: a millionth of a
 * cent, or for large amounts a few units in the last place (1e-15 of the amount), since
 * 301105533188.15 × 100 is 0.004 off a whole number (it was refused before).
 */
export function hasAtMostTwoDecimals(value: number): boolean {
  return isWhole(value * 100);
}

/** Whole within the rounding error of a product of a JSON number (money, quantities). */
export function isWhole(scaled: number): boolean {
  return Math.abs(scaled - Math.round(scaled)) < Math.max(1e-6, Math.abs(scaled) * 1e-15);
}

export function toCents(value: number): number {
  return Math.round(value * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}
