/**
 * How a queued job is announced across processes (PostgreSQL's LISTEN/NOTIFY): the channel,
 * and the payload every instance's notifier reads (`postgres/postgres-job-notifier.ts`).
 */

/** The PostgreSQL channel on which every instance hears of queued jobs. */
export const jobsChannel = 'shopdesk_jobs';

/**
 * The payload: company, route and job. Route names are `[a-z0-9._-]`, so `:` separates. The
 * job id keeps two announcements of one transaction distinct (PostgreSQL delivers identical
 * payloads of one transaction once).
 */
export const noticeOf = (companyId: number, route: string, jobId: number) =>
  `${noticePrefix(companyId, route)}${jobId}`;

/** The payload before its job id: for a statement that learns the id as it inserts the job. */
export const noticePrefix = (companyId: number, route: string) => `${companyId}:${route}:`;

export function parseNotice(payload: string): { companyId: number; route: string } | undefined {
  const match = /^(\d+):([a-z0-9._-]{1,64}):\d+$/.exec(payload);
  if (!match) return undefined;
  return { companyId: Number(match[1]), route: match[2]! };
}

/**
 * The agents waiting in this process, as the store sees them when it queues a job
 * (PostgreSQL's notifier). A job that one of them will take is announced here alone: no
 * NOTIFY, so no other instance wakes an agent to race for it (each instance would wake one,
 * all but one of them claiming nothing).
 */
export interface WaitersHere {
  /**
   * Whether an agent of this process waits for a job of the route, so that the job about
   * to be queued there needs no NOTIFY. When it answers yes, the store calls `queuedHere`
   * once the job has committed.
   */
  takesHere(companyId: number, route: string): boolean;
  /**
   * After the commit of a job `takesHere` kept: wakes one agent of this process waiting on
   * its route or, when none is left (it went away meanwhile), tells every process (NOTIFY).
   */
  queuedHere(companyId: number, route: string): void;
}
