import { useState } from 'preact/hooks';
import type { ConsoleJobDetail } from '../../../shared/console-jobs.ts';
import { type JobErrorWords, jobErrorWords } from '../../../shared/job-error-words.ts';
import type { QueuedJobRecord } from '../../../shared/printing.ts';
import { type WaitReasonCode, waitReasonAdvice } from '../../../shared/wait-reason-words.ts';
import { ApiError, api, can, type Session } from '../api.ts';
import { DocumentView, Rendering } from '../components/job-document.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { RetryAllButton } from '../components/retry-all-button.tsx';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { navigate, onLinkClick } from '../router.ts';
import { count, jobStates, when } from '../words.ts';

/** When a queued job was last queued (created, retried, given back): its last event to `queued`. */
function waitingSince(job: ConsoleJobDetail): string {
  return job.events.findLast((event) => event.to === 'queued')?.at ?? job.created_at;
}

/** Which actions the API allows in each state (docs/printing.md): shown only then. */
const actions = {
  cancel: ['queued'],
  retry: ['failed', 'expired', 'cancelled'],
  reprint: ['printed', 'failed'],
};

export function JobPage({ id, session }: { id: number; session: Session }) {
  usePageTitle(`Job ${id}`);
  const live = useLiveVersion();
  const [message, setMessage] = useState('');
  const { data, error, reload } = useLoad(
    () => api<{ data: ConsoleJobDetail }>('GET', `/console/jobs/${id}`).then((a) => a.data),
    [id, live],
  );
  const act = async (action: 'cancel' | 'retry' | 'reprint') => {
    setMessage('');
    try {
      const answer = await api<{ data: QueuedJobRecord }>('POST', `/printing/jobs/${id}/${action}`);
      if (action === 'reprint') {
        setMessage(`Reprint queued as job #${answer.data.id}.`);
        navigate(`/console/jobs/${answer.data.id}`);
      } else {
        setMessage(action === 'cancel' ? 'The job is cancelled.' : 'The job is queued again.');
        reload();
      }
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  if (error) return <p role="alert">{error}</p>;
  if (!data) return <p>Loading…</p>;
  const failure = data.status === 'failed' ? jobErrorWords(data.error?.code) : null;
  return (
    <>
      <h1>
        Job #{data.id} {data.title ? `· ${data.title}` : ''}
      </h1>
      <p>
        <a href="/console/jobs" onClick={onLinkClick}>
          All jobs
        </a>
      </p>
      {data.status === 'failed' && <WhatWentWrong job={data} words={failure} />}
      <JobFacts job={data} />
      {can(session, 'printing.jobs.create') && (
        <div class="actions">
          {actions.cancel.includes(data.status) && (
            <button type="button" class="danger" onClick={() => act('cancel')}>
              Cancel
            </button>
          )}
          {actions.retry.includes(data.status) && (
            <RetryButton words={failure} onRetry={() => act('retry')} />
          )}
          {actions.reprint.includes(data.status) && (
            <button type="button" class="secondary" onClick={() => act('reprint')}>
              Reprint
            </button>
          )}
        </div>
      )}
      <p role="status">{message}</p>
      {data.status === 'failed' &&
        failure?.retry !== 'never' &&
        can(session, 'printing.jobs.create') && (
          <RetryAllButton
            route={data.route}
            printer={data.printer_name ?? undefined}
            onDone={setMessage}
          />
        )}
      <History events={data.events} />
      <Rendering job={data} />
      <h2>Document</h2>
      <DocumentView job={data} />
    </>
  );
}

/** A failed job: what happened in words, the printer's own message and code, what to do. */
function WhatWentWrong({ job, words }: { job: ConsoleJobDetail; words: JobErrorWords | null }) {
  return (
    <section class="callout danger" aria-labelledby="went-wrong" data-testid="job-failure">
      <h2 id="went-wrong">What went wrong</h2>
      <p>
        <strong>{words?.words ?? job.error?.message ?? 'The job failed.'}</strong>
      </p>
      {job.error && (
        <p>
          {job.printer_name ? `${job.printer_name} said` : 'The message'}: “{job.error.message}”
          {job.error.code && (
            <>
              {' '}
              (code <code>{job.error.code}</code>)
            </>
          )}
        </p>
      )}
      <p data-testid="job-advice">
        <strong>What to do:</strong>{' '}
        {words?.advice ?? 'Check the printer and the message, then retry.'}
      </p>
    </section>
  );
}

/** Retry, or why it is not offered: a retry prints the same job the same way. */
function RetryButton({ words, onRetry }: { words: JobErrorWords | null; onRetry: () => void }) {
  if (words?.retry === 'never') {
    return (
      <>
        <button type="button" disabled aria-describedby="retry-why">
          Retry
        </button>
        <p id="retry-why" class="hint" data-testid="retry-why">
          Retry cannot help here: {words.advice}
        </p>
      </>
    );
  }
  return (
    <button type="button" onClick={onRetry}>
      Retry
    </button>
  );
}

function JobFacts({ job }: { job: ConsoleJobDetail }) {
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd data-testid="job-state">{jobStates[job.status] ?? job.status}</dd>
      <dt>Route</dt>
      <dd>{job.route}</dd>
      <dt>Printer</dt>
      <dd data-testid="job-printer">{job.printer_name ?? 'Not sent to a printer yet'}</dd>
      <dt>Agent</dt>
      <dd>{job.agent_name ? `${job.agent_name} (${job.agent_id?.slice(0, 8)})` : 'None yet'}</dd>
      <dt>Document</dt>
      <dd>
        {job.content_type}, {count(job.size, 'byte')}, {count(job.copies, 'copy', 'copies')}
      </dd>
      <dt>Tries</dt>
      <dd>{count(job.attempts, 'attempt')}</dd>
      {job.wait_reason && (
        <>
          <dt>Why it waits</dt>
          <dd data-testid="job-wait-reason">
            {job.wait_reason.message}.{' '}
            {waitReasonAdvice[job.wait_reason.code as WaitReasonCode] ?? ''}
          </dd>
          <dt>Waiting since</dt>
          <dd data-testid="job-waiting-since">{when(waitingSince(job))}</dd>
        </>
      )}
      {job.reprint_of && (
        <>
          <dt>Reprint of</dt>
          <dd>
            <a href={`/console/jobs/${job.reprint_of}`} onClick={onLinkClick}>
              #{job.reprint_of}
            </a>
          </dd>
        </>
      )}
    </dl>
  );
}

/** The job's trail, oldest first: each state with when, which agent and its message. */
function History({ events }: { events: ConsoleJobDetail['events'] }) {
  return (
    <>
      <h2>History</h2>
      <ol class="timeline">
        {events.map((event, index) => (
          <li key={index}>
            <time dateTime={event.at}>{when(event.at)}</time>: {jobStates[event.to] ?? event.to}
            {event.agent_id && ` (agent ${event.agent_id.slice(0, 8)})`}
            {event.message && ` — ${event.message}`}
          </li>
        ))}
      </ol>
    </>
  );
}
