import { useState } from 'preact/hooks';
import type {
  ConsoleJobPage,
  ConsoleJobRecord,
  JobChoicesRecord,
} from '../../../shared/console-jobs.ts';
import { jobErrorWords } from '../../../shared/job-error-words.ts';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, can, type Page, type Session } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { RetryAllButton } from '../components/retry-all-button.tsx';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { navigate, onLinkClick } from '../router.ts';
import { count, jobStates, when } from '../words.ts';

const filterNames = ['search', 'status', 'route', 'printer', 'agent_id', 'since'] as const;
const perPage = 25;

/** What is wrong with a job, in words: why it waits, or its error from the catalogue. */
export function jobProblem(job: ConsoleJobRecord): string {
  if (job.wait_reason) return job.wait_reason.message;
  if (!job.error) return '';
  return jobErrorWords(job.error.code)?.words ?? job.error.message;
}

/** The jobs page's address with `changes` applied (a filter, the page). */
function jobsLink(changes: Record<string, string | null>): string {
  const next = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value) next.set(name, value);
    else next.delete(name);
  }
  const query = next.toString();
  return `/console/jobs${query ? `?${query}` : ''}`;
}

export function JobsPage({ session }: { session: Session }) {
  usePageTitle('Jobs');
  const live = useLiveVersion();
  const params = new URLSearchParams(location.search);
  const page = Number(params.get('page') ?? '1');
  const query = new URLSearchParams();
  for (const name of [...filterNames, 'page'] as const) {
    const value = params.get(name);
    if (value) query.set(name, name === 'since' ? new Date(value).toISOString() : value);
  }
  query.set('per_page', String(perPage));
  const [retried, setRetried] = useState('');
  // Read once when the page opens: the form is made anew for each search, these are not.
  const { data: agents } = useLoad(
    () => api<Page<{ id: string; name: string }>>('GET', '/printing/agents?per_page=100'),
    [],
  );
  const { data: choices } = useLoad(
    () => api<{ data: JobChoicesRecord }>('GET', '/console/jobs/choices').then((a) => a.data),
    [],
  );
  const { data, error } = useLoad(
    () => api<ConsoleJobPage>('GET', `/console/jobs?${query}`),
    [location.search, live],
  );
  const filtered = filterNames.some((name) => params.get(name));
  const route = params.get('route') ?? undefined;
  const printer = params.get('printer') ?? undefined;
  const offerRetryAll =
    params.get('status') === 'failed' &&
    (route || printer) &&
    can(session, 'printing.jobs.create') &&
    (data?.data.length ?? 0) > 0;
  return (
    <>
      <h1>Jobs</h1>
      <JobFilters params={params} agents={agents?.data} choices={choices} />
      {error && <p role="alert">{error}</p>}
      {offerRetryAll && <RetryAllButton route={route} printer={printer} onDone={setRetried} />}
      <p role="status">{retried}</p>
      {data && data.data.length === 0 && page === 1 && <NoJobs filtered={filtered} />}
      {data && data.data.length > 0 && (
        <>
          <JobTable jobs={data.data} page={page} />
          <nav aria-label="Pages" class="pages">
            {page > 1 && (
              <a href={jobsLink({ page: String(page - 1) })} onClick={onLinkClick}>
                Newer
              </a>
            )}
            <span>Page {page}</span>
            {data.meta.has_more && (
              <a href={jobsLink({ page: String(page + 1) })} onClick={onLinkClick}>
                Older
              </a>
            )}
          </nav>
        </>
      )}
    </>
  );
}

function NoJobs({ filtered }: { filtered: boolean }) {
  if (filtered) {
    return (
      <EmptyState title="No job matches this search.">
        <a href="/console/jobs" onClick={onLinkClick}>
          Show all jobs
        </a>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No print jobs yet.">
      <p>
        Jobs appear here as soon as your till or shop software sends one. To print them, enrol the
        computer the printers are connected to.
      </p>
      <a href="/console/agents" onClick={onLinkClick}>
        Enrol your first computer
      </a>
    </EmptyState>
  );
}

/** Search and filters; the values offered are those that exist (routes, printers, agents). */
function JobFilters(props: {
  params: URLSearchParams;
  agents: { id: string; name: string }[] | undefined;
  choices: JobChoicesRecord | undefined;
}) {
  const { params, agents, choices } = props;
  const apply = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of filterNames) {
      const value = String(form.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    navigate(`/console/jobs${next.size > 0 ? `?${next}` : ''}`);
  };
  const current = (name: string) => params.get(name) ?? '';
  // Keyed by the address: going back or following a link shows that search's values.
  return (
    <form class="filters" aria-label="Search jobs" onSubmit={apply} key={location.search}>
      <label class="grow">
        Search
        <input
          type="search"
          name="search"
          defaultValue={current('search')}
          placeholder="Order A-1043, 1043"
          aria-describedby="search-hint"
        />
        <small id="search-hint">A job's title or number</small>
      </label>
      <label>
        State
        <select name="status" defaultValue={current('status')}>
          <option value="">Any</option>
          {Object.entries(jobStates).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <Choice label="Route" name="route" value={current('route')} values={choices?.routes} />
      <Choice
        label="Printer"
        name="printer"
        value={current('printer')}
        values={choices?.printers}
      />
      <label>
        Agent
        <select name="agent_id" defaultValue={current('agent_id')}>
          <option value="">Any</option>
          {agents?.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name} ({agent.id.slice(0, 8)})
            </option>
          ))}
        </select>
      </label>
      <label>
        Created since
        <input type="datetime-local" name="since" defaultValue={current('since')} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

/** A filter offering the values that exist (and the one in the address, if gone since). */
function Choice(props: { label: string; name: string; value: string; values?: string[] }) {
  const values = props.values ?? [];
  const offered = props.value && !values.includes(props.value) ? [props.value, ...values] : values;
  return (
    <label>
      {props.label}
      <select name={props.name} defaultValue={props.value} key={offered.join('\n')}>
        <option value="">Any</option>
        {offered.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </label>
  );
}

function JobTable({ jobs, page }: { jobs: ConsoleJobRecord[]; page: number }) {
  const open = (job: ConsoleJobRecord) => navigate(`/console/jobs/${job.id}`);
  const onKey = (event: KeyboardEvent, job: ConsoleJobRecord) => {
    if (event.target !== event.currentTarget) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open(job);
    }
  };
  return (
    <table class="list">
      <caption>
        {count(jobs.length, 'job')} {page > 1 ? `on page ${page}` : 'shown'}, newest first. Choose a
        row to open its job.
      </caption>
      <ColumnHeads
        names={['Job', 'Title', 'Route', 'Printer', 'Agent', 'State', 'Problem', 'Created']}
      />
      <tbody>
        {jobs.map((job) => (
          <tr
            key={job.id}
            data-job={job.id}
            class="row-link"
            tabIndex={0}
            aria-label={`Job ${job.id}${job.title ? `, ${job.title}` : ''}: ${jobStates[job.status] ?? job.status}`}
            onClick={(event) => {
              if ((event.target as HTMLElement).closest('a')) return;
              open(job);
            }}
            onKeyDown={(event) => onKey(event, job)}
          >
            <td data-label="Job">
              <a href={`/console/jobs/${job.id}`} onClick={onLinkClick} tabIndex={-1}>
                #{job.id}
              </a>
            </td>
            <td data-label="Title">{job.title ?? '—'}</td>
            <td data-label="Route">{job.route}</td>
            <td data-label="Printer">{job.printer_name ?? '—'}</td>
            <td data-label="Agent">{job.agent_name ?? '—'}</td>
            <td data-label="State" class={`state state-${job.status}`}>
              {jobStates[job.status] ?? job.status}
            </td>
            <td data-label="Problem">{jobProblem(job) || '—'}</td>
            <td data-label="Created">{when(job.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
