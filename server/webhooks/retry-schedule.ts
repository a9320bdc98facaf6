/**
 * When a failed delivery is tried again: after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and
 * 10 h (the schedule of the best-known providers, about 28 hours in all), then it is
 * `failed`. Each delay is spread by ±20 % (jitter), so that the events of an endpoint that
 * came back do not all return in the same second.
 */
export const retryDelaysMs: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** An endpoint whose every attempt has failed for this long is disabled. */
export const disableAfterMs = 5 * 24 * 3_600_000;

/**
 * The delay before the next attempt after `failures` failed attempts since the delivery
 * was (re)queued, or undefined when the schedule is spent.
 */
export function nextDelayMs(
  failures: number,
  random: () => number = Math.random,
  delays: readonly number[] = retryDelaysMs,
): number | undefined {
  const base = delays[failures - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.8 + 0.4 * random()));
}
