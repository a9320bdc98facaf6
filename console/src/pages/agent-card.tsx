import { useState } from 'preact/hooks';
import type { CreatedEnrollment } from '../../../shared/enrollments.ts';
import type { AgentListing } from '../../../shared/printing.ts';
import { profileMisfit } from '../../../shared/profile-fit.ts';
import { capabilitiesInWords, profileInWords } from '../../../shared/profile-presets.ts';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, failureMessage } from '../api.ts';
import { CopyField } from '../components/copy-field.tsx';
import { Dialog } from '../components/dialog.tsx';
import { count, printerStates, reasonInWords, when } from '../words.ts';
import { AgentRoutesForm } from './agent-routes-form.tsx';
import { RevokeCloudPrntPrinter } from './cloudprnt-printer-form.tsx';

export type Agent = AgentListing;
type Printer = Agent['printers'][number];
type Route = Agent['routes'][number];

/** One agent: its name and state, what people can do with it, its routes and printers. */
export function AgentCard(props: { agent: Agent; mayEdit: boolean; onChanged: () => void }) {
  const { agent, mayEdit, onChanged } = props;
  const [editing, setEditing] = useState(false);
  return (
    <section class="agent card" aria-labelledby={`agent-${agent.id}`} data-agent={agent.id}>
      <h2 id={`agent-${agent.id}`}>
        {agent.name}{' '}
        <span class={agent.online ? 'badge ok' : 'badge off'} data-testid="agent-presence">
          {agent.online ? 'Online' : 'Offline'}
        </span>
        {agent.paused && <span class="badge off">Paused</span>}
      </h2>
      <p>
        {agent.hostname} · {agent.platform} · version {agent.version} · last seen{' '}
        {when(agent.last_seen_at)} · id{' '}
        <abbr title={agent.id} data-testid="agent-id">
          {agent.id.slice(0, 8)}
        </abbr>
      </p>
      {mayEdit && (
        <div class="actions">
          <RenameAgent agent={agent} onDone={onChanged} />
          {!editing && (
            <button
              type="button"
              class="secondary"
              aria-label={`Edit routes of ${agent.name}`}
              onClick={() => setEditing(true)}
            >
              Edit routes
            </button>
          )}
          {agent.platform === 'cloudprnt' || agent.platform === 'epson-sdp' ? (
            <RevokeCloudPrntPrinter
              agentId={agent.id}
              agentName={agent.name}
              onRevoked={onChanged}
            />
          ) : (
            <ReEnrolAgent agent={agent} />
          )}
          {!agent.online && <RemoveAgent agent={agent} onDone={onChanged} />}
        </div>
      )}
      <h3>Routes</h3>
      {agent.routes.length === 0 ? (
        <p>No routes yet.{mayEdit && ' "Edit routes" gives this agent its first one.'}</p>
      ) : (
        <ul>
          {agent.routes.map((route) => (
            <li key={route.name} data-route={route.name}>
              <strong>{route.name}</strong> → {route.printer || 'the default printer'}
              {(route.backup_printers ?? []).length > 0 &&
                `, else ${(route.backup_printers ?? []).join(', else ')}`}
              {!route.enabled && ' (off)'} · profile: {profileInWords(route.profile)}
              <RouteMisfit route={route} printers={agent.printers} />
            </li>
          ))}
        </ul>
      )}
      {mayEdit && editing && (
        <AgentRoutesForm
          agentId={agent.id}
          agentName={agent.name}
          routes={agent.routes}
          printers={agent.printers.map((printer) => printer.name)}
          onSaved={onChanged}
          onClose={() => setEditing(false)}
        />
      )}
      <h3>Printers</h3>
      <PrinterTable printers={agent.printers} />
    </section>
  );
}

function PrinterTable({ printers }: { printers: Printer[] }) {
  if (printers.length === 0) return <p>The agent reported no printer.</p>;
  return (
    <table class="list">
      <ColumnHeads names={['Printer', 'State', 'Details', 'Takes']} />
      <tbody>
        {printers.map((printer) => (
          <tr key={printer.name}>
            <td data-label="Printer">
              {printer.name}
              {printer.is_default && ' (default)'}
            </td>
            <td data-label="State">{printerStates[printer.state] ?? printer.state}</td>
            <td data-label="Details">{printerDetails(printer)}</td>
            <td data-label="Takes">{capabilitiesInWords(printer.capabilities)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function printerDetails(printer: Printer): string {
  const last = printer.last_known;
  if (last) {
    // The last report may itself have had no state ("unknown"): say so, not "last seen unknown".
    const state =
      last.state === 'unknown'
        ? 'no state reported'
        : (printerStates[last.state] ?? last.state).toLowerCase();
    const parts = [...last.reasons.map(reasonInWords), last.message].filter(Boolean);
    return `The agent is offline. Last report, ${when(last.at)}: ${[state, ...parts].join(', ')}.`;
  }
  return [...printer.reasons.map(reasonInWords), printer.message].filter(Boolean).join(', ') || '—';
}

/** A name people choose ("Front till"): it stays when the agent registers again. */
function RenameAgent({ agent, onDone }: { agent: Agent; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState('');
  const save = async (event: Event) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name')).trim();
    try {
      await api('PATCH', `/console/agents/${agent.id}`, { name });
      setOpen(false);
      onDone();
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };
  return (
    <>
      <button
        type="button"
        class="secondary"
        aria-label={`Rename ${agent.name}`}
        onClick={() => {
          setError('');
          setOpen(true);
        }}
      >
        Rename
      </button>
      <Dialog open={open} title={`Rename ${agent.name}`} onClose={() => setOpen(false)}>
        <form onSubmit={save}>
          <label for={`rename-${agent.id}`}>New name</label>
          <input
            id={`rename-${agent.id}`}
            name="name"
            required
            maxLength={100}
            defaultValue={agent.name}
            data-autofocus=""
          />
          {error && <p role="alert">{error}</p>}
          <div class="actions">
            <button type="submit">Save the name</button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

/** Removes an offline agent; its tokens are revoked, so that computer cannot print any more. */
function RemoveAgent({ agent, onDone }: { agent: Agent; onDone: () => void }) {
  const [error, setError] = useState('');
  const remove = async () => {
    if (
      !confirm(
        `Remove ${agent.name}? Its routes go, and its tokens are revoked: that computer cannot print until it is enrolled again. Its jobs keep their history.`,
      )
    )
      return;
    try {
      await api('DELETE', `/console/agents/${agent.id}`);
      onDone();
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };
  return (
    <>
      <button type="button" class="danger" aria-label={`Remove ${agent.name}`} onClick={remove}>
        Remove
      </button>
      {error && <p role="alert">{error}</p>}
    </>
  );
}

/**
 * Makes a code that re-enrols this agent's computer (a lost or leaked token): it works once,
 * on that computer only, and the agent's old tokens stop working when it is used
 * (docs/it-guide.md, "Re-enrol a computer"). Shown in a dialog with Copy.
 */
function ReEnrolAgent({ agent }: { agent: Agent }) {
  const [code, setCode] = useState<CreatedEnrollment | null>(null);
  const [error, setError] = useState('');
  const make = async () => {
    setError('');
    try {
      const answer = await api<{ data: CreatedEnrollment }>('POST', '/printing/enrollments', {
        name: `Re-enrol ${agent.name}`.slice(0, 255),
        agent_id: agent.id,
      });
      setCode(answer.data);
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };
  return (
    <>
      <button
        type="button"
        class="secondary"
        aria-label={`Re-enrol this computer: ${agent.name}`}
        onClick={make}
      >
        Re-enrol this computer
      </button>
      {error && <p role="alert">{error}</p>}
      <Dialog
        open={code !== null}
        title={`Re-enrolment code for ${agent.name}`}
        onClose={() => setCode(null)}
      >
        {code && (
          <>
            <CopyField label="Re-enrolment code" value={code.code} focus large />
            <p>
              On that computer, type it where the agent asks for its token, before{' '}
              {when(code.expires_at)}. It works once ({count(1, 'use')}), on that computer only;
              when it is used, the computer's old token stops working.
            </p>
          </>
        )}
      </Dialog>
    </>
  );
}

/** "misconfigured: PDF_Office takes PDF, the profile says ESC/POS", beside such a route. */
function RouteMisfit({ route, printers }: { route: Route; printers: Printer[] }) {
  const printer = printers.find((candidate) => candidate.name === route.printer);
  const misfit = printer && profileMisfit(route.profile, printer);
  if (!misfit) return null;
  return (
    <strong class="misfit" data-testid="route-misfit">
      {' '}
      — {misfit}. Give the route a profile this printer prints, or another printer.
    </strong>
  );
}
