import type { RecentJob } from '../../core/status.ts';
import { el, formatTime } from './dom.ts';

const statusText: Record<RecentJob['status'], string> = {
  queued: 'Queued',
  claimed: 'Claimed',
  printing: 'Printing',
  printed: 'Printed',
  failed: 'Failed',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

export interface JobActions {
  retry(jobId: number): void;
  reprint(jobId: number): void;
}

function actionButton(
  label: string,
  jobId: number,
  run: (jobId: number) => void,
  primary: boolean,
) {
  const button = el('button', {
    className: `button button-small${primary ? ' button-primary' : ''}`,
    text: label,
    attrs: { type: 'button', 'data-job-id': String(jobId), 'aria-label': `${label} job ${jobId}` },
  });
  button.addEventListener('click', () => {
    button.disabled = true;
    run(jobId);
  });
  return button;
}

/** One table row per job; retry and reprint appear where the queue allows them. */
export function renderJobRow(job: RecentJob, actions: JobActions): HTMLTableRowElement {
  const failed = job.status === 'failed' || job.status === 'expired';
  const jobCell = el('td', {}, [
    el('div', { className: 'job-title', text: job.title ?? `Job #${job.id}` }),
    el('div', { className: 'muted', text: `#${job.id}` }),
    ...(job.error ? [el('div', { className: 'job-error', text: job.error })] : []),
  ]);
  const buttons: HTMLButtonElement[] = [];
  if (failed) buttons.push(actionButton('Retry', job.id, actions.retry, true));
  if (job.status === 'printed' || job.status === 'failed') {
    buttons.push(actionButton('Reprint', job.id, actions.reprint, false));
  }
  return el(
    'tr',
    { className: failed ? 'job-failed' : '', attrs: { 'data-job-id': String(job.id) } },
    [
      jobCell,
      el('td', { text: job.route }),
      el('td', { text: job.printer ?? '—' }),
      el('td', {}, [
        el('span', { className: `badge badge-${job.status}`, text: statusText[job.status] }),
      ]),
      el('td', { className: 'muted', text: formatTime(job.at) }),
      el('td', { className: 'job-actions' }, buttons),
    ],
  );
}

export function jobsSummary(jobs: RecentJob[]): string {
  const failed = jobs.filter((job) => job.status === 'failed' || job.status === 'expired').length;
  const printing = jobs.filter(
    (job) => job.status === 'printing' || job.status === 'claimed',
  ).length;
  const parts = [`${jobs.length} recent`];
  if (printing > 0) parts.push(`${printing} printing`);
  if (failed > 0) parts.push(`${failed} need attention`);
  return parts.join(' · ');
}
