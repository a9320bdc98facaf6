import { useState } from 'preact/hooks';
import { api, can, type Page, type Session } from '../api.ts';
import { usePageTitle } from '../components/page-title.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { type Agent, AgentCard } from './agent-card.tsx';
import { AddCloudPrntPrinter } from './cloudprnt-printer-form.tsx';
import { EnrolAgent, EnrolmentCodes } from './enrolment.tsx';

/**
 * The company's agents: enrol a computer (the code's dialog and the active codes), and per
 * agent its routes, printers and what owners and managers may change (docs/console.md,
 * "Agents").
 */
export function AgentsPage({ session }: { session: Session }) {
  usePageTitle('Agents');
  const live = useLiveVersion();
  const [codes, setCodes] = useState(0);
  const { data, error, reload } = useLoad(
    () => api<Page<Agent>>('GET', '/printing/agents?per_page=100'),
    [live],
  );
  const mayEdit = can(session, 'printing.agents.write');
  const agents = data?.data ?? [];
  const knownRoutes = [
    ...new Set(agents.flatMap((agent) => agent.routes.map((route) => route.name))),
  ].sort();
  return (
    <>
      <h1>Agents</h1>
      <p>Agents are the computers that print: each serves routes on its printers.</p>
      {mayEdit && <EnrolAgent knownRoutes={knownRoutes} onMade={() => setCodes((n) => n + 1)} />}
      {mayEdit && <AddCloudPrntPrinter onAdded={reload} />}
      {error && <p role="alert">{error}</p>}
      {data && agents.length === 0 && (
        <div class="empty">
          <h2>Enrol your first computer</h2>
          <p>
            No agent has connected yet. {mayEdit ? '"Enrol an agent" above makes' : 'IT makes'} a
            code to type into the print agent on the computer next to your printers.
          </p>
        </div>
      )}
      {agents.map((agent) => (
        <AgentCard key={agent.id} agent={agent} mayEdit={mayEdit} onChanged={reload} />
      ))}
      {mayEdit && <EnrolmentCodes version={codes} />}
    </>
  );
}
