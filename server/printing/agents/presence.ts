import { isoNow } from '../../time.ts';

/**
 * What an agent's `online` is measured against: the time. Each agent's row says until when
 * it counts as present (`present_until`, migration 038), written with its `last_seen_at`.
 */
export interface Presence {
  now: Date;
}

/**
 * An agent counts as online while its last heartbeat (or registration) is within this many
 * heartbeat intervals: one heartbeat may be lost without the agent showing offline.
 */
export const onlineHeartbeats = 2;

/**
 * A printer that is a member itself (CloudPRNT) counts as online while its last poll is within
 * this many of its own polling intervals, when that is longer than an agent's interval.
 */
export const onlinePolls = 3;

/** How long an agent counts as present after it was heard: two heartbeat intervals. */
export const agentPresentSeconds = (heartbeatSeconds: number): number =>
  onlineHeartbeats * heartbeatSeconds;

/**
 * How long a member printer counts as present after it polled: three of its polling intervals,
 * but never less than an agent (a printer polling every 2 s keeps 30 s, so that most of its
 * polls write nothing). Without a known interval (an Epson printer), the agents' rule.
 */
export const memberPresentSeconds = (
  heartbeatSeconds: number,
  pollIntervalSeconds: number | undefined,
): number =>
  Math.max(agentPresentSeconds(heartbeatSeconds), onlinePolls * (pollIntervalSeconds ?? 0));

/** The `present_until` to write for a row heard at `now`, present for `seconds`. */
export const presentUntil = (now: Date, seconds: number): string =>
  isoNow(new Date(now.getTime() + seconds * 1000));

/** The least `present_until` of an agent that is online at `now`, as stored (to the second). */
export const presentAt = (now: Date): string => isoNow(now);

/** What a member's last presence write said, as `memberLastSeen` reads it. */
export interface MemberSeen {
  lastSeenAt: string | null;
  /** Signed on: `online_since` is set. */
  online: boolean;
}

/**
 * Whether a member's presence is to be written at `now`: it is offline, or its last write is
 * older than half a heartbeat interval (half its polling interval when that sets its online
 * interval). So a poll with nothing new writes nothing at most polls of a printer polling
 * every few seconds, and one polling every minute is kept present by each of its polls.
 */
export function memberPresenceDue(
  seen: MemberSeen,
  now: Date,
  heartbeatSeconds: number,
  pollIntervalSeconds: number | undefined,
): boolean {
  const window = memberPresentSeconds(heartbeatSeconds, pollIntervalSeconds);
  const longer = window > agentPresentSeconds(heartbeatSeconds);
  const halfSeconds = (longer ? (pollIntervalSeconds ?? 0) : heartbeatSeconds) / 2;
  const due = isoNow(new Date(now.getTime() - halfSeconds * 1000));
  return !seen.online || seen.lastSeenAt === null || seen.lastSeenAt < due;
}
