/** The texts of the last seconds asked for: a request writes "now" and "now + a lease" (or a TTL). */
const shownSeconds = [Number.NaN, Number.NaN];
const shownTexts = ['', ''];
let oldest = 0;

/**
 * ISO 8601 UTC to the second, as the API writes every timestamp: `2026-11-22T10:00:00Z`.
 * A request writes several, often of two seconds (a claim's time and its lease's end, a
 * key's time and its expiry), so the texts of the last two seconds asked for are kept.
 */
export function isoNow(date: Date = new Date()): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second === shownSeconds[0]) return shownTexts[0]!;
  if (second === shownSeconds[1]) return shownTexts[1]!;
  const text = `${date.toISOString().slice(0, 19)}Z`;
  shownSeconds[oldest] = second;
  shownTexts[oldest] = text;
  oldest = 1 - oldest;
  return text;
}

/** The server's notion of now; tests replace it to move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
