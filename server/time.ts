let shownSecond = Number.NaN;
let shown = '';

/**
 * ISO 8601 UTC to the second, as the API writes every timestamp: `2026-11-22T10:00:00Z`.
 * A request writes several; the text of the last second asked for is kept.
 */
export function isoNow(date: Date = new Date()): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== shownSecond) {
    shown = `${date.toISOString().slice(0, 19)}Z`;
    shownSecond = second;
  }
  return shown;
}

/** The server's notion of now; tests replace it to move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
