import { z } from 'zod';
import { isWhole } from './money.ts';

/**
 * Quantities (stock balances, offer lines, assembly components) travel as JSON numbers
 * with at most three decimals and are computed in integer thousandths ("milli"), never in
 * floating point, the way money is computed in cents.
 */
export const maxQuantity = 999_999_999.999;

/** As `hasAtMostTwoDecimals` (money.ts), in thousandths. */
export function hasAtMostThreeDecimals(value: number): boolean {
  return isWhole(value * 1000);
}

/** A quantity of at least 0 (a stock balance). */
export const quantitySchema = z
  .number()
  .min(0)
  .max(maxQuantity)
  .refine(hasAtMostThreeDecimals, 'The :attribute field must have at most 3 decimal places.')
  // The rule as JSON Schema writes it, for the OpenAPI document (a refine has no schema).
  .meta({ multipleOf: 0.001 });

/** A quantity above 0 (what is sold or assembled). */
export const positiveQuantitySchema = z
  .number()
  .gt(0)
  .max(maxQuantity)
  .refine(hasAtMostThreeDecimals, 'The :attribute field must have at most 3 decimal places.')
  .meta({ multipleOf: 0.001 });

export function toMilli(value: number): number {
  return Math.round(value * 1000);
}

export function fromMilli(milli: number): number {
  return milli / 1000;
}
