/** ISO 8601 UTC to the second, as the API writes every timestamp: `2026-11-22T10:00:00Z`. */
export function isoNow(date: Date = new Date()): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The server's notion of now; tests replace it to move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
