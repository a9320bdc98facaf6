import type { JobRecord } from '../../../shared/printing.ts';
import type { RecentJob } from '../status.ts';
import type { RuntimeStatus } from './runtime-status.ts';

/** Puts a job first among the recent jobs (newest first), in place of what was said of it. */
export function rememberJob(status: RuntimeStatus, job: Omit<RecentJob, 'at'>): void {
  const recent: RecentJob = { ...job, at: status.now().toISOString() };
  status.state.recentJobs = [
    recent,
    ...status.state.recentJobs.filter((other) => other.id !== job.id),
  ].slice(0, status.recentJobsLimit);
  status.emit();
}

/** A job as the server answered it (retry, reprint). */
export function rememberJobRecord(status: RuntimeStatus, job: JobRecord): void {
  rememberJob(status, {
    id: job.id,
    route: job.route,
    title: job.title,
    status: job.status,
    printer: job.printer,
    error: job.error?.message ?? null,
  });
}

/** A later word on a recent job (the server refused its report); it keeps its place. */
export function noteRecentJobError(status: RuntimeStatus, jobId: number, error: string): void {
  const recent = status.state.recentJobs.find((job) => job.id === jobId);
  if (!recent) return;
  recent.error = error;
  recent.at = status.now().toISOString();
  status.emit();
}
