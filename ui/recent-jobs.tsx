import { useState } from 'preact/hooks';
import type { JobStatus } from '../shared/printing.ts';
import { ColumnHeads } from './column-heads.tsx';

/** A job as a list of the latest shows it: what it is, where it went, how it ended. */
export interface RecentJobView {
  id: number;
  route: string;
  title: string | null;
  status: JobStatus | 'printing';
  printer: string | null;
  error: string | null;
  at: string;
}

const statusWords: Record<RecentJobView['status'], string> = {
  queued: 'Queued',
  claimed: 'Claimed',
  printing: 'Printing',
  printed: 'Printed',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

const needsAttention = (job: RecentJobView) => job.status === 'failed' || job.status === 'expired';

/** "3 recent · 1 printing · 1 need attention". */
export function jobsSummary(jobs: readonly RecentJobView[]): string {
  const printing = jobs.filter((job) => job.status === 'printing' || job.status === 'claimed');
  const failed = jobs.filter(needsAttention).length;
  const parts = [`${jobs.length} recent`];
  if (printing.length > 0) parts.push(`${printing.length} printing`);
  if (failed > 0) parts.push(`${failed} need attention`);
  return parts.join(' · ');
}

/** The time of day for today, else the date and time, in the reader's own format. */
export function timeInWords(at: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
}

/**
 * The latest jobs, newest first, with Retry on a failed one and Reprint on a finished one.
 * What the buttons do is the caller's (the tray asks its agent through the preload bridge):
 * each answers in words, or throws an error whose message says what went wrong.
 */
export function RecentJobs(props: {
  jobs: readonly RecentJobView[];
  retry: (jobId: number) => Promise<string>;
  reprint: (jobId: number) => Promise<string>;
}) {
  const { jobs } = props;
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState<number | null>(null);
  const run = async (jobId: number, action: (jobId: number) => Promise<string>) => {
    setBusy(jobId);
    try {
      setMessage(await action(jobId));
    } catch (failure) {
      setMessage(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      {jobs.length > 0 && <p class="muted jobs-summary">{jobsSummary(jobs)}</p>}
      {jobs.length === 0 ? (
        <p class="empty">No jobs yet. Printed and failed jobs show here.</p>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <ColumnHeads
              names={['Job', 'Route', 'Printer', 'Status', 'When']}
              actions
              actionsClass="actions-col"
            />
            <tbody>
              {jobs.map((job) => (
                <JobRow
                  key={job.id}
                  job={job}
                  busy={busy === job.id}
                  retry={() => void run(job.id, props.retry)}
                  reprint={() => void run(job.id, props.reprint)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="message" role="status">
        {message}
      </p>
    </>
  );
}

/** One job; Retry where the queue takes it again, Reprint where it ended. */
function JobRow(props: {
  job: RecentJobView;
  busy: boolean;
  retry: () => void;
  reprint: () => void;
}) {
  const { job, busy, retry, reprint } = props;
  return (
    <tr class={needsAttention(job) ? 'job-failed' : ''} data-job-id={job.id}>
      <td>
        <div class="job-title">{job.title ?? `Job #${job.id}`}</div>
        <div class="muted">#{job.id}</div>
        {job.error && <div class="job-error">{job.error}</div>}
      </td>
      <td>{job.route}</td>
      <td>{job.printer ?? '—'}</td>
      <td>
        <span class={`badge badge-${job.status}`}>{statusWords[job.status]}</span>
      </td>
      <td class="muted">{timeInWords(job.at)}</td>
      <td class="job-actions">
        {needsAttention(job) && (
          <JobButton label="Retry" job={job} busy={busy} primary onClick={retry} />
        )}
        {(job.status === 'printed' || job.status === 'failed') && (
          <JobButton label="Reprint" job={job} busy={busy} onClick={reprint} />
        )}
      </td>
    </tr>
  );
}

/** A small button acting on one job, named with the job's number for screen readers. */
function JobButton(props: {
  label: string;
  job: RecentJobView;
  busy: boolean;
  primary?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      class={props.primary ? 'button button-small button-primary' : 'button button-small'}
      aria-label={`${props.label} job ${props.job.id}`}
      disabled={props.busy}
      onClick={props.onClick}
    >
      {props.label}
    </button>
  );
}
