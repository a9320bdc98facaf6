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

export function hasAtMostTwoDecimals(value: number): boolean {
  return Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;
}

export function toCents(value: number): number {
  return Math.round(value * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}
