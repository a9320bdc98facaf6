import { isoNow } from '../../time.ts';

/** What an agent's `online` is measured against: the time, and the heartbeat interval agents keep. */
export interface Presence {
  now: Date;
  heartbeatSeconds: number;
}

/**
 * An agent counts as online while its last heartbeat (or registration) is within this many
 * heartbeat intervals: one heartbeat may be lost without the agent showing offline.
 */
export const onlineHeartbeats = 2;

/** The oldest `last_seen_at` of an agent that is online at `now`, as stored (to the second). */
export const onlineSince = (now: Date, heartbeatSeconds: number): string =>
  isoNow(new Date(now.getTime() - onlineHeartbeats * heartbeatSeconds * 1000));
