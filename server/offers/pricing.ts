/**
 * Offer arithmetic, in integers only: money in cents, quantities in thousandths, discounts
 * in basis points (hundredths of a percent). BigInt keeps the intermediate product exact
 * (cents × milli × basis points overflows a double's 2^53 long before real amounts do).
 */

const perLine = 1000n * 10_000n; // milli per unit × basis points per 100 %

/** Rounds numerator / denominator half-up (away from zero for halves); both ≥ 0. */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** unit price × quantity × (1 − discount), rounded half-up to the cent, once per line. */
export function lineTotalCents(
  unitPriceCents: number,
  quantityMilli: number,
  discountBasisPoints: number,
): number {
  const numerator =
    BigInt(unitPriceCents) * BigInt(quantityMilli) * BigInt(10_000 - discountBasisPoints);
  return Number(divideHalfUp(numerator, perLine));
}

/** 12.5 (%) → 1250. The schema allows at most two decimals. */
export function toBasisPoints(percent: number): number {
  return Math.round(percent * 100);
}

export function fromBasisPoints(basisPoints: number): number {
  return basisPoints / 100;
}
