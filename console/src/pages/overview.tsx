import type { CannotPrintRecord, OverviewRecord } from '../../../shared/console.ts';
import { type WaitReasonCode, waitReasonAdvice } from '../../../shared/wait-reason-words.ts';
import { api } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { onLinkClick } from '../router.ts';
import { printerStates, reasonInWords, when } from '../words.ts';

/** What to do for each thing that cannot print: the wait reasons' advice, and an agent's. */
function adviceFor(item: CannotPrintRecord): string {
  if (item.code === 'agent_offline') return 'Start the print agent on that computer.';
  return waitReasonAdvice[item.code as WaitReasonCode] ?? '';
}

const sinceWords: Record<CannotPrintRecord['kind'], string> = {
  route: 'waiting since',
  printer: '',
  agent: 'last heard from',
};

export function OverviewPage() {
  usePageTitle('Overview');
  const live = useLiveVersion();
  const { data, error } = useLoad(
    () => api<{ data: OverviewRecord }>('GET', '/console/overview').then((a) => a.data),
    [live],
  );
  return (
    <>
      <h1>Overview</h1>
      {error && <p role="alert">{error}</p>}
      {data && (
        <>
          <CannotPrintList items={data.cannot_print} />
          <section aria-labelledby="o-summary">
            <h2 id="o-summary" class="visually-hidden">
              At a glance
            </h2>
            <ul class="tiles">
              <Tile href="/console/agents" figure={data.agents.online} testId="agents-online">
                {data.agents.online === 1 ? 'agent online' : 'agents online'}
              </Tile>
              <Tile
                href="/console/agents"
                figure={data.agents.offline}
                testId="agents-offline"
                bad={data.agents.offline > 0}
              >
                {data.agents.offline === 1 ? 'agent offline' : 'agents offline'}
              </Tile>
              <Tile href="/console/jobs?status=queued" figure={data.jobs_last_24h.queued}>
                waiting to print (24 h)
              </Tile>
              <Tile href="/console/jobs?status=printed" figure={data.jobs_last_24h.printed}>
                printed (24 h)
              </Tile>
              <Tile
                href="/console/jobs?status=failed"
                figure={data.jobs_last_24h.failed}
                bad={data.jobs_last_24h.failed > 0}
              >
                failed (24 h)
              </Tile>
            </ul>
          </section>
          {data.agents.online + data.agents.offline === 0 && (
            <EmptyState title="No computer prints for this shop yet.">
              <p>
                Enrol the computer your receipt, label or office printers are connected to: it then
                prints the jobs your shop software sends.
              </p>
              <a href="/console/agents" onClick={onLinkClick}>
                Enrol your first computer
              </a>
            </EmptyState>
          )}
          <PrintersSection overview={data} />
          <section aria-labelledby="o-webhooks" class="card">
            <h2 id="o-webhooks">Webhooks</h2>
            {data.failing_webhooks.length === 0 ? (
              <p>No webhook endpoint is failing.</p>
            ) : (
              <ul>
                {data.failing_webhooks.map((w) => (
                  <li key={w.id}>
                    {w.url} has been failing since {new Date(w.failing_since).toLocaleString()}
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </>
  );
}

/** A summary figure that links to the list behind it ("3 failed (24 h)"). */
function Tile(props: {
  href: string;
  figure: number;
  testId?: string;
  bad?: boolean;
  children: string;
}) {
  return (
    <li class={props.bad ? 'tile bad' : 'tile'}>
      <a href={props.href} onClick={onLinkClick}>
        <span class="figure" data-testid={props.testId}>
          {props.figure.toLocaleString()}
        </span>{' '}
        <span class="label">{props.children}</span>
      </a>
    </li>
  );
}

/** What cannot print now, most serious first, each with since when and what to do. */
function CannotPrintList({ items }: { items: CannotPrintRecord[] }) {
  if (items.length === 0) return null;
  return (
    <section aria-labelledby="o-cannot" class="attention">
      <h2 id="o-cannot">What cannot print now</h2>
      <ol data-testid="cannot-print">
        {items.map((item) => (
          <li key={`${item.kind}/${item.route}/${item.agent_id}/${item.printer}`}>
            <strong>{item.message}.</strong>{' '}
            {item.since && sinceWords[item.kind] && (
              <span>
                ({sinceWords[item.kind]} {when(item.since)}){' '}
              </span>
            )}
            {adviceFor(item)}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The printers that need attention beyond those that cannot print; or that all are fine. */
function PrintersSection({ overview: data }: { overview: OverviewRecord }) {
  return (
    <section aria-labelledby="o-printers" class="card">
      <h2 id="o-printers">Printers that need attention</h2>
      {(() => {
        const listed = new Set(data.cannot_print.map((item) => `${item.agent_id}/${item.printer}`));
        const others = data.printers_needing_attention.filter(
          (p) => !listed.has(`${p.agent_id}/${p.printer}`),
        );
        if (data.cannot_print.length === 0 && others.length === 0) {
          return (
            <p data-testid="all-fine">
              {data.agents.online + data.agents.offline === 0
                ? 'No print agent yet.'
                : 'All printers are fine.'}
            </p>
          );
        }
        return (
          <ul>
            {others.map((p) => (
              <li key={`${p.agent_id}/${p.printer}`}>
                <strong>{p.printer}</strong> on {p.agent_name}: {printerStates[p.state] ?? p.state}
                {p.reasons.length > 0 && ` (${p.reasons.map(reasonInWords).join(', ')})`}
              </li>
            ))}
            {others.length === 0 && <li>No other printer needs attention.</li>}
          </ul>
        );
      })()}
    </section>
  );
}
