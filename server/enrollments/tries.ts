/**
 * Tries at an enrolment code a minute, per client address, counted by every instance (in
 * PostgreSQL or Redis, like the request rate limit; in the process on SQLite: the wiring opens
 * it, server/app.ts). Ten lets a shop's PCs behind one address enrol in a few minutes and keeps
 * guessing a code hopeless.
 */
export const enrollmentTriesPerMinute = 10;

/** The key of an address's tries: apart from the tokens' counters, which are numbers. */
export const triesKey = (address: string): string => `enrollment:${address}`;
