import { useState } from 'preact/hooks';
import { type WaitReasonCode, waitReasonAdvice } from '../../../shared/wait-reason-words.ts';
import { ApiError, api, can, type Page, type Session } from '../api.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { navigate, onLinkClick } from '../router.ts';
import { jobStates, when } from '../words.ts';

interface Job {
  id: number;
  route: string;
  title: string | null;
  status: string;
  content_type: string;
  size: number;
  copies: number;
  attempts: number;
  agent_id: string | null;
  printer: string | null;
  error: { message: string; code: string | null } | null;
  /** Why a queued job is not printing now (docs/printing.md, "Why a job waits"). */
  wait_reason: { code: string; message: string } | null;
  reprint_of: number | null;
  created_at: string;
  printed_at: string | null;
}

/** When a queued job was last queued (created, retried, given back): its last event to `queued`. */
function waitingSince(job: JobDetail): string {
  return job.events.findLast((event) => event.to === 'queued')?.at ?? job.created_at;
}

interface JobDetail extends Job {
  events: {
    from: string | null;
    to: string;
    agent_id: string | null;
    message: string | null;
    at: string;
  }[];
}

const filterNames = ['status', 'route', 'agent_id', 'since'] as const;

export function JobsPage() {
  const live = useLiveVersion();
  const params = new URLSearchParams(location.search);
  const page = Number(params.get('page') ?? '1');
  const query = new URLSearchParams();
  for (const name of [...filterNames, 'page'] as const) {
    const value = params.get(name);
    if (value) query.set(name, name === 'since' ? new Date(value).toISOString() : value);
  }
  query.set('per_page', '25');
  const search = location.search;
  const { data, error } = useLoad(
    () => api<Page<Job>>('GET', `/printing/history?${query}`),
    [search, live],
  );
  const { data: agents } = useLoad(
    () => api<Page<{ id: string; name: string }>>('GET', '/printing/agents?per_page=100'),
    [],
  );
  const apply = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of filterNames) {
      const value = String(form.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    navigate(`/console/jobs?${next}`);
  };
  const pageLink = (to: number) => {
    const next = new URLSearchParams(location.search);
    next.set('page', String(to));
    return `/console/jobs?${next}`;
  };
  return (
    <>
      <h1>Jobs</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter jobs">
        <label>
          State
          <select name="status" defaultValue={params.get('status') ?? ''}>
            <option value="">Any</option>
            {Object.entries(jobStates).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Route
          <input name="route" defaultValue={params.get('route') ?? ''} />
        </label>
        <label>
          Agent
          <select name="agent_id" defaultValue={params.get('agent_id') ?? ''}>
            <option value="">Any</option>
            {agents?.data.map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Created since
          <input type="datetime-local" name="since" defaultValue={params.get('since') ?? ''} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {error && <p role="alert">{error}</p>}
      {data && (
        <>
          <table>
            <caption>{data.meta.total} jobs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Title</th>
                <th scope="col">Route</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((job) => (
                <tr key={job.id} data-job={job.id}>
                  <td>
                    <a href={`/console/jobs/${job.id}`} onClick={onLinkClick}>
                      #{job.id}
                    </a>
                  </td>
                  <td>{job.title ?? '—'}</td>
                  <td>{job.route}</td>
                  <td class={`state-${job.status}`}>
                    {jobStates[job.status] ?? job.status}
                    {job.wait_reason && <small>: {job.wait_reason.message}</small>}
                  </td>
                  <td>{when(job.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav aria-label="Pages" class="pages">
            {page > 1 && (
              <a href={pageLink(page - 1)} onClick={onLinkClick}>
                Newer
              </a>
            )}
            <span>
              Page {data.meta.current_page} of {Math.max(1, data.meta.last_page)}
            </span>
            {page < data.meta.last_page && (
              <a href={pageLink(page + 1)} onClick={onLinkClick}>
                Older
              </a>
            )}
          </nav>
        </>
      )}
    </>
  );
}

/** Which actions the API allows in each state (docs/printing.md): shown only then. */
const actions = {
  cancel: ['queued'],
  retry: ['failed', 'expired', 'cancelled'],
  reprint: ['printed', 'failed'],
};

export function JobPage({ id, session }: { id: number; session: Session }) {
  const live = useLiveVersion();
  const [message, setMessage] = useState('');
  const { data, error, reload } = useLoad(
    () => api<{ data: JobDetail }>('GET', `/printing/jobs/${id}`).then((a) => a.data),
    [id, live],
  );
  const act = async (action: 'cancel' | 'retry' | 'reprint') => {
    setMessage('');
    try {
      const answer = await api<{ data: Job }>('POST', `/printing/jobs/${id}/${action}`);
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
  const mayAct = can(session, 'printing.jobs.create');
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
      <dl class="facts">
        <dt>State</dt>
        <dd data-testid="job-state">{jobStates[data.status] ?? data.status}</dd>
        <dt>Route</dt>
        <dd>{data.route}</dd>
        <dt>Printer</dt>
        <dd>{data.printer ?? '—'}</dd>
        <dt>Document</dt>
        <dd>
          {data.content_type}, {data.size} bytes, {data.copies} cop{data.copies === 1 ? 'y' : 'ies'}
        </dd>
        {data.wait_reason && (
          <>
            <dt>Why it waits</dt>
            <dd data-testid="job-wait-reason">
              {data.wait_reason.message}.{' '}
              {waitReasonAdvice[data.wait_reason.code as WaitReasonCode] ?? ''}
            </dd>
            <dt>Waiting since</dt>
            <dd data-testid="job-waiting-since">{when(waitingSince(data))}</dd>
          </>
        )}
        {data.error && (
          <>
            <dt>Error</dt>
            <dd>{data.error.message}</dd>
          </>
        )}
        {data.reprint_of && (
          <>
            <dt>Reprint of</dt>
            <dd>
              <a href={`/console/jobs/${data.reprint_of}`} onClick={onLinkClick}>
                #{data.reprint_of}
              </a>
            </dd>
          </>
        )}
      </dl>
      {mayAct && (
        <div class="actions">
          {actions.cancel.includes(data.status) && (
            <button type="button" onClick={() => act('cancel')}>
              Cancel
            </button>
          )}
          {actions.retry.includes(data.status) && (
            <button type="button" onClick={() => act('retry')}>
              Retry
            </button>
          )}
          {actions.reprint.includes(data.status) && (
            <button type="button" onClick={() => act('reprint')}>
              Reprint
            </button>
          )}
        </div>
      )}
      <p role="status">{message}</p>
      <h2>History</h2>
      <ol class="timeline">
        {data.events.map((event, index) => (
          <li key={index}>
            <time dateTime={event.at}>{when(event.at)}</time>: {jobStates[event.to] ?? event.to}
            {event.agent_id && ` (agent ${event.agent_id.slice(0, 8)})`}
            {event.message && ` — ${event.message}`}
          </li>
        ))}
      </ol>
      <Rendering job={data} />
      <h2>Document</h2>
      <DocumentView job={data} />
    </>
  );
}

function DocumentView({ job }: { job: Job }) {
  const src = `/api/v1/console/jobs/${job.id}/document`;
  if (job.content_type === 'application/pdf') {
    return <iframe class="document" title={`Document of job ${job.id}`} src={src} />;
  }
  const { data, error } = useLoad(
    () =>
      fetch(src, { credentials: 'same-origin' }).then(async (r) => {
        if (!r.ok) throw new Error(`The document cannot be shown (${r.status}).`);
        return new Uint8Array(await r.arrayBuffer());
      }),
    [job.id],
  );
  if (error) return <p>{error}</p>;
  if (!data) return <p>Loading…</p>;
  // A template job's data, before an agent claims it, is JSON: shown as text too.
  const text = job.content_type.startsWith('text/') || job.content_type.endsWith('+json');
  const shown = text
    ? new TextDecoder().decode(data.slice(0, 64 * 1024))
    : Array.from(data.slice(0, 4096), (b) => b.toString(16).padStart(2, '0'))
        .join(' ')
        .replace(/((?:\S+ ){16})/g, '$1\n');
  return (
    <section aria-label={text ? 'Document text' : 'Document bytes in hexadecimal'}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus to scroll by keyboard (WCAG 2.1.1). */}
      <pre class="document" tabIndex={0}>
        {shown}
      </pre>
    </section>
  );
}

/** Content types a template job can have: its data before the claim, a printer's bytes after. */
const maybeTemplate = (type: string) =>
  type === 'application/vnd.shopdesk.template-data+json' || type.startsWith('application/vnd.');

/**
 * A job made from a template, as it prints (`GET /printing/jobs/{job}/preview`, PNG: a
 * receipt, or a label's ZPL drawn by the server): the server answers 422 for a job sent as
 * bytes, which then shows nothing here; its bytes show below as the document.
 */
function Rendering({ job }: { job: Job }) {
  const { data } = useLoad(async () => {
    if (!maybeTemplate(job.content_type)) return null;
    const response = await fetch(`/api/v1/printing/jobs/${job.id}/preview?format=png`, {
      credentials: 'same-origin',
    });
    if (!response.ok || !response.headers.get('content-type')?.startsWith('image/')) return null;
    const blob = await response.blob();
    return new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    });
  }, [job.id, job.content_type]);
  if (!data) return null;
  return (
    <>
      <h2>As printed</h2>
      <img
        class="rendering"
        data-testid="job-rendering"
        src={data}
        alt={`Job ${job.id} as printed`}
      />
    </>
  );
}
