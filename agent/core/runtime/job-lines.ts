import type { JobResult } from '../status.ts';
import { rememberJob } from './recent-jobs.ts';
import type { RuntimeStatus } from './runtime-status.ts';

/**
 * The line said of a job the agent is done with: `job 12 route=labels printer=Zebra_ZD421
 * printed 184 ms`, and `: message (code)` after it when it failed. The CLI's stdout carries
 * these lines and nothing else (docs/agent.md).
 */
export function jobLine(result: JobResult): string {
  const line = `job ${result.jobId} route=${result.route} printer=${result.printer ?? '-'} ${result.result} ${result.ms} ms`;
  return result.error ? `${line}: ${result.error.message} (${result.error.code})` : line;
}

/**
 * A job printed or failed, here or in a run that crashed: it goes first among the recent jobs
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
  status.log(result.error ? 'error' : 'info', jobLine(result), result);
}
