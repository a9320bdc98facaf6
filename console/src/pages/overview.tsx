import { api } from '../api.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { onLinkClick } from '../router.ts';
import { printerStates, reasonInWords } from '../words.ts';

interface Overview {
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
            {data.printers_needing_attention.length === 0 ? (
              <p>All printers are fine.</p>
            ) : (
              <ul>
                {data.printers_needing_attention.map((p) => (
                  <li key={`${p.agent_id}/${p.printer}`}>
                    <strong>{p.printer}</strong> on {p.agent_name}:{' '}
                    {printerStates[p.state] ?? p.state}
                    {p.reasons.length > 0 && ` (${p.reasons.map(reasonInWords).join(', ')})`}
                  </li>
                ))}
              </ul>
            )}
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
