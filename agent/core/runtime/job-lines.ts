import type { JobResult } from '../status.ts';
import { rememberJob } from './recent-jobs.ts';
import type { RuntimeContext } from './runtime-context.ts';
import type { RuntimeStatus } from './runtime-status.ts';

/**
 * The line said of a job the agent is done with: `job 12 route=labels printer=Zebra_ZD421
 * printed 184 ms`, and `: message (code)` after it when it failed or was given back
 * (`queued`: its printer cannot print now). The CLI's stdout carries
 * these lines and nothing else (docs/agent.md).
 */
export function jobLine(result: JobResult): string {
  const timing = result.ms === null ? '' : ` ${result.ms} ms`;
  const line = `job ${result.jobId} route=${result.route} printer=${result.printer ?? '-'} ${result.result}${timing}`;
  return result.error ? `${line}: ${result.error.message} (${result.error.code})` : line;
}

/**
 * A job printed, failed or given back, here or in a run that crashed: it goes first among the recent jobs
 * and its line to the log, carrying the result.
 */
export function announceJobResult(status: RuntimeStatus, result: JobResult): void {
  rememberJob(status, {
    id: result.jobId,
    route: result.route,
    title: result.title,
    status: result.result,
    printer: result.printer,
    error: result.error?.message ?? null,
  });
  const level = result.result === 'queued' ? 'warn' : result.error ? 'error' : 'info';
  status.log(level, jobLine(result), result);
}

/** The code the server fails a claimed job with when its lease ran out (docs/printing.md). */
export const leaseExpiredCode = 'lease_expired';

/**
 * The server failed a job of this agent's because its lease ran out (heartbeats did not get
 * through in time, or the agent was down): a `failed … (lease_expired)` line, once per job
 * whichever way the agent hears of it (a heartbeat releasing a job in hand, a report answered
 * 409). Returns false when the job had its line already.
 */
export function announceLeaseLost(
  context: RuntimeContext,
  job: { jobId: number; route: string; title: string | null; printer: string | null },
  message: string,
): boolean {
  if (context.leaseLost.has(job.jobId)) return false;
  context.leaseLost.add(job.jobId);
  announceJobResult(context.status, {
    ...job,
    result: 'failed',
    ms: null,
    error: { code: leaseExpiredCode, message },
  });
  return true;
}
