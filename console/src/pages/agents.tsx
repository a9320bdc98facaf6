import { useState } from 'preact/hooks';
import { profileMisfit } from '../../../shared/profile-fit.ts';
import { ApiError, api, can, type Page, type Session } from '../api.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { printerStates, reasonInWords, when } from '../words.ts';
import { type AgentRoute, AgentRoutesForm } from './agent-routes-form.tsx';
import { AddCloudPrntPrinter, RevokeCloudPrntPrinter } from './cloudprnt-printer-form.tsx';

interface Printer {
  name: string;
  is_default: boolean;
  state: string;
  reasons: string[];
  message: string | null;
  /** What it takes: a route whose profile it cannot print is misconfigured. */
  capabilities?: Parameters<typeof profileMisfit>[1]['capabilities'];
  /** While its agent is offline: what it last reported, and when (its state reads unknown). */
  last_known?: { state: string; reasons: string[]; message: string | null; at: string | null };
}

interface Agent {
  id: string;
  name: string;
  hostname: string;
  platform: string;
  version: string;
  printers: Printer[];
  paused: boolean;
  online: boolean;
  last_seen_at: string | null;
  routes: AgentRoute[];
}

export function AgentsPage({ session }: { session: Session }) {
  const live = useLiveVersion();
  const { data, error, reload } = useLoad(
    () => api<Page<Agent>>('GET', '/printing/agents?per_page=100'),
    [live],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const mayEdit = can(session, 'printing.agents.write');
  return (
    <>
      <h1>Agents</h1>
      {can(session, 'printing.agents.write') && <EnrolAgent />}
      {can(session, 'printing.agents.write') && <AddCloudPrntPrinter onAdded={reload} />}
      {error && <p role="alert">{error}</p>}
      {data && data.data.length === 0 && <p>No agent has connected yet.</p>}
      {data?.data.map((agent) => (
        <section
          key={agent.id}
          class="agent"
          aria-labelledby={`agent-${agent.id}`}
          data-agent={agent.id}
        >
          <h2 id={`agent-${agent.id}`}>
            {agent.name}{' '}
            <span class={agent.online ? 'badge ok' : 'badge off'} data-testid="agent-presence">
              {agent.online ? 'Online' : 'Offline'}
            </span>
            {agent.paused && <span class="badge off">Paused</span>}
          </h2>
          <p>
            {agent.hostname} · {agent.platform} · version {agent.version} · last seen{' '}
            {when(agent.last_seen_at)}
          </p>
          <h3>Routes</h3>
          {agent.routes.length === 0 ? (
            <p>No routes.</p>
          ) : (
            <ul>
              {agent.routes.map((route) => (
                <li key={route.name}>
                  {route.name} → {route.printer || 'the default printer'}
                  {(route.backup_printers ?? []).length > 0 &&
                    `, else ${(route.backup_printers ?? []).join(', else ')}`}
                  {!route.enabled && ' (off)'}
                  <RouteMisfit route={route} printers={agent.printers} />
                </li>
              ))}
            </ul>
          )}
          {mayEdit && editing !== agent.id && (
            <button
              type="button"
              aria-label={`Edit routes of ${agent.name}`}
              onClick={() => setEditing(agent.id)}
            >
              Edit routes
            </button>
          )}
          {mayEdit && agent.platform !== 'cloudprnt' && (
            <ReEnrolAgent agentId={agent.id} agentName={agent.name} />
          )}
          {mayEdit && agent.platform === 'cloudprnt' && (
            <RevokeCloudPrntPrinter agentId={agent.id} agentName={agent.name} onRevoked={reload} />
          )}
          {mayEdit && editing === agent.id && (
            <AgentRoutesForm
              agentId={agent.id}
              agentName={agent.name}
              routes={agent.routes}
              printers={agent.printers.map((printer) => printer.name)}
              onSaved={reload}
              onClose={() => setEditing(null)}
            />
          )}
          <h3>Printers</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Printer</th>
                <th scope="col">State</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {agent.printers.map((printer) => (
                <tr key={printer.name}>
                  <td>
                    {printer.name}
                    {printer.is_default && ' (default)'}
                  </td>
                  <td>{printerStates[printer.state] ?? printer.state}</td>
                  <td>
                    {printer.last_known
                      ? `The agent is offline; last seen ${(
                          printerStates[printer.last_known.state] ?? printer.last_known.state
                        ).toLowerCase()}${[
                          ...printer.last_known.reasons.map(reasonInWords),
                          printer.last_known.message,
                        ]
                          .filter(Boolean)
                          .map((part) => `, ${part}`)
                          .join('')} at ${when(printer.last_known.at)}`
                      : [...printer.reasons.map(reasonInWords), printer.message]
                          .filter(Boolean)
                          .join(', ') || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </>
  );
}

/**
 * Makes a code that re-enrols this agent's computer (a lost or leaked token, a token placed
 * by hand before enrolment codes): it works once, on that computer only, and the agent's old
 * tokens stop working when it is used. An ordinary code is refused for an agent the company
 * already has (docs/it-guide.md, "Re-enrol a computer").
 */
function ReEnrolAgent({ agentId, agentName }: { agentId: string; agentName: string }) {
  const [code, setCode] = useState<{ code: string; expires_at: string } | null>(null);
  const [error, setError] = useState('');
  const make = async () => {
    setError('');
    try {
      const answer = await api<{ data: { code: string; expires_at: string } }>(
        'POST',
        '/printing/enrollments',
        { name: `Re-enrol ${agentName}`.slice(0, 255), agent_id: agentId },
      );
      setCode(answer.data);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  return (
    <div class="enrol">
      <button type="button" aria-label={`Re-enrol this computer: ${agentName}`} onClick={make}>
        Re-enrol this computer
      </button>
      {error && <p role="alert">{error}</p>}
      {code && (
        <p role="status">
          Re-enrolment code for {agentName}:{' '}
          <code data-testid="re-enrolment-code">{code.code}</code>. On that computer, type it where
          the agent asks for its token, before {when(code.expires_at)}. It works once, on that
          computer only; when it is used, the computer's old token stops working.
        </p>
      )}
    </div>
  );
}

/** Makes an enrolment code to type into a new agent's setup (or `shopdesk agent enroll`). */
function EnrolAgent() {
  const [code, setCode] = useState<{ code: string; expires_at: string } | null>(null);
  const [error, setError] = useState('');
  const make = async () => {
    setError('');
    try {
      const answer = await api<{ data: { code: string; expires_at: string } }>(
        'POST',
        '/printing/enrollments',
        { name: 'From the console' },
      );
      setCode(answer.data);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  return (
    <div class="enrol">
      <button type="button" onClick={make}>
        Enrol an agent
      </button>
      {error && <p role="alert">{error}</p>}
      {code && (
        <p role="status">
          Enrolment code: <code data-testid="enrolment-code">{code.code}</code>. Type it into the
          agent's setup on the new computer before {when(code.expires_at)}. It works once, for a new
          computer: to enrol one of the computers below again, use its own Re-enrol button.
        </p>
      )}
    </div>
  );
}

/** "misconfigured: PDF_Office takes PDF, the profile says ESC/POS", beside such a route. */
function RouteMisfit({ route, printers }: { route: AgentRoute; printers: Printer[] }) {
  const printer = printers.find((candidate) => candidate.name === route.printer);
  const misfit =
    printer && profileMisfit(route.profile as Parameters<typeof profileMisfit>[0], printer);
  if (!misfit) return null;
  return (
    <strong class="misfit" data-testid="route-misfit">
      {' '}
      — {misfit}. Give the route a profile this printer prints, or another printer.
    </strong>
  );
}
