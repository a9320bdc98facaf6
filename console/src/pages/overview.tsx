import { type WaitReasonCode, waitReasonAdvice } from '../../../shared/wait-reason-words.ts';
import { api } from '../api.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { onLinkClick } from '../router.ts';
import { printerStates, reasonInWords, when } from '../words.ts';

/** What to do for each thing that cannot print: the wait reasons' advice, and an agent's. */
function adviceFor(item: CannotPrint): string {
  if (item.code === 'agent_offline') return 'Start the print agent on that computer.';
  return waitReasonAdvice[item.code as WaitReasonCode] ?? '';
}

const sinceWords: Record<CannotPrint['kind'], string> = {
  route: 'waiting since',
  printer: '',
  agent: 'last heard from',
};

/** One thing that cannot print now (docs/console.md, "Overview"). */
interface CannotPrint {
  kind: 'route' | 'printer' | 'agent';
  code: string;
  message: string;
  route: string | null;
  agent_id: string | null;
  agent_name: string | null;
  printer: string | null;
  jobs_waiting: number | null;
  since: string | null;
}

interface Overview {
  cannot_print: CannotPrint[];
  agents: { online: number; offline: number };
  printers_needing_attention: {
    agent_id: string;
    agent_name: string;
    printer: string;
    state: string;
    reasons: string[];
  }[];
  jobs_last_24h: { queued: number; printed: number; failed: number };
  failing_webhooks: { id: number; url: string; failing_since: string }[];
}

export function OverviewPage() {
  const live = useLiveVersion();
  const { data, error } = useLoad(
    () => api<{ data: Overview }>('GET', '/console/overview').then((a) => a.data),
    [live],
  );
  return (
    <>
      <h1>Overview</h1>
      {error && <p role="alert">{error}</p>}
      {data && (
        <>
          {data.cannot_print.length > 0 && (
            <section aria-labelledby="o-cannot" class="attention">
              <h2 id="o-cannot">What cannot print now</h2>
              <ol data-testid="cannot-print">
                {data.cannot_print.map((item) => (
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
          )}
          <section aria-labelledby="o-agents" class="cards">
            <h2 id="o-agents">Agents</h2>
            <p>
              <strong data-testid="agents-online">{data.agents.online}</strong> online,{' '}
              <strong data-testid="agents-offline">{data.agents.offline}</strong> offline.{' '}
              <a href="/console/agents" onClick={onLinkClick}>
                See the agents
              </a>
            </p>
          </section>
          <section aria-labelledby="o-jobs">
            <h2 id="o-jobs">Jobs in the last 24 hours</h2>
            <ul class="figures">
              <li>
                <a href="/console/jobs?status=queued" onClick={onLinkClick}>
                  {data.jobs_last_24h.queued} waiting to print
                </a>
              </li>
              <li>
                <a href="/console/jobs?status=printed" onClick={onLinkClick}>
                  {data.jobs_last_24h.printed} printed
                </a>
              </li>
              <li>
                <a href="/console/jobs?status=failed" onClick={onLinkClick}>
                  {data.jobs_last_24h.failed} failed
                </a>
              </li>
            </ul>
          </section>
          <section aria-labelledby="o-printers">
            <h2 id="o-printers">Printers that need attention</h2>
            {(() => {
              const listed = new Set(
                data.cannot_print.map((item) => `${item.agent_id}/${item.printer}`),
              );
              const others = data.printers_needing_attention.filter(
                (p) => !listed.has(`${p.agent_id}/${p.printer}`),
              );
              if (data.cannot_print.length === 0 && others.length === 0) {
                return (
                  <p data-testid="all-fine">
                    {data.agents.online + data.agents.offline === 0
                      ? 'No print agent yet: enrol one on the Agents page.'
                      : 'All printers are fine.'}
                  </p>
                );
              }
              return (
                <ul>
                  {others.map((p) => (
                    <li key={`${p.agent_id}/${p.printer}`}>
                      <strong>{p.printer}</strong> on {p.agent_name}:{' '}
                      {printerStates[p.state] ?? p.state}
                      {p.reasons.length > 0 && ` (${p.reasons.map(reasonInWords).join(', ')})`}
                    </li>
                  ))}
                  {others.length === 0 && <li>No other printer needs attention.</li>}
                </ul>
              );
            })()}
          </section>
          <section aria-labelledby="o-webhooks">
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
