import { useState } from 'preact/hooks';
import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { PrintRoute } from '../../../shared/printing.ts';
import { api, failureMessage } from '../api.ts';
import { ProfilePicker } from '../components/profile-picker.tsx';

export type AgentRoute = PrintRoute;

interface Row {
  key: number;
  name: string;
  printer: string;
  /** The backup printers as typed: a comma list, in order. */
  backups: string;
  enabled: boolean;
  /** What its printer understands: none, a preset or in detail (ProfilePicker). */
  profile: PrinterProfile | undefined;
  /** The route as the server had it (its options kept on save). */
  was: AgentRoute | null;
}

let keys = 0;

/**
 * Edits an agent's routes: each route's name, its printer (one the agent reported), its
 * printer profile and whether it is on. The agent takes the change at its next heartbeat
 * (docs/console.md).
 */
export function AgentRoutesForm(props: {
  agentId: string;
  agentName: string;
  routes: AgentRoute[];
  printers: string[];
  onSaved: () => void;
  onClose: () => void;
}) {
  const { agentId, agentName, printers } = props;
  const [rows, setRows] = useState<Row[]>(() =>
    props.routes.map((route) => ({
      key: ++keys,
      name: route.name,
      printer: route.printer,
      enabled: route.enabled,
      profile: route.profile,
      backups: (route.backup_printers ?? []).join(', '),
      was: route,
    })),
  );
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const change = (key: number, patch: Partial<Row>) =>
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  const add = () =>
    setRows((current) => [
      ...current,
      {
        key: ++keys,
        name: '',
        printer: printers[0] ?? '',
        backups: '',
        enabled: true,
        profile: undefined,
        was: null,
      },
    ]);
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage('');
    try {
      await api('PUT', `/console/agents/${agentId}/routes`, {
        routes: rows.map((row) => ({
          name: row.name.trim(),
          printer: row.printer,
          // Sent only when there are some: a route without reads as it always did.
          ...(backupsOf(row).length > 0 && { backup_printers: backupsOf(row) }),
          enabled: row.enabled,
          ...(row.was?.options && { options: row.was.options }),
          ...(row.profile && { profile: row.profile }),
        })),
      });
      setMessage('Saved. The agent takes the new routes within a few seconds.');
      props.onSaved();
    } catch (failure) {
      setMessage(failureMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  const idOf = (row: Row, field: string) => `route-${agentId}-${row.key}-${field}`;
  return (
    <form onSubmit={save} class="routes-form" aria-label={`Routes of ${agentName}`}>
      {rows.length === 0 && <p>No routes. Add one below.</p>}
      {rows.map((row, index) => {
        const choices = printers.includes(row.printer) ? printers : [row.printer, ...printers];
        return (
          <fieldset key={row.key} data-route-row={index}>
            <legend>Route {index + 1}</legend>
            <label for={idOf(row, 'name')}>Route name</label>
            <input
              id={idOf(row, 'name')}
              value={row.name}
              required
              maxLength={64}
              pattern="[a-z0-9._\-]{1,64}"
              title="Lower-case letters, digits, dots, dashes and underscores"
              onInput={(event) => change(row.key, { name: event.currentTarget.value })}
            />
            <label for={idOf(row, 'printer')}>Printer</label>
            <select
              id={idOf(row, 'printer')}
              value={row.printer}
              required
              onChange={(event) => change(row.key, { printer: event.currentTarget.value })}
            >
              {choices.map((printer) => (
                <option key={printer} value={printer}>
                  {printer}
                  {!printers.includes(printer) && ' (not reported by the agent)'}
                </option>
              ))}
            </select>
            <label for={idOf(row, 'backups')}>Backup printers (optional)</label>
            <input
              id={idOf(row, 'backups')}
              value={row.backups}
              list={`printers-${agentId}`}
              placeholder="e.g. Front-2, Office"
              aria-describedby={idOf(row, 'backups-help')}
              onInput={(event) => change(row.key, { backups: event.currentTarget.value })}
            />
            <small id={idOf(row, 'backups-help')}>
              Used in this order when the printer cannot print (out of paper, offline). Each job
              prints once, on one printer. Separate names with commas.
            </small>
            <ProfilePicker
              idBase={idOf(row, 'p')}
              profile={row.profile}
              onChange={(profile) => change(row.key, { profile })}
            />
            <label class="check">
              <input
                type="checkbox"
                checked={row.enabled}
                onChange={(event) => change(row.key, { enabled: event.currentTarget.checked })}
              />{' '}
              Enabled
            </label>
            <button
              type="button"
              class="danger"
              onClick={() => setRows((current) => current.filter((r) => r.key !== row.key))}
            >
              Remove route {index + 1}
            </button>
          </fieldset>
        );
      })}
      <datalist id={`printers-${agentId}`}>
        {printers.map((printer) => (
          <option key={printer} value={printer} />
        ))}
      </datalist>
      <div class="actions">
        <button type="button" class="secondary" onClick={add} disabled={printers.length === 0}>
          Add a route
        </button>{' '}
        <button type="submit" disabled={busy}>
          Save
        </button>{' '}
        <button type="button" class="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
      <p role="status">{message}</p>
    </form>
  );
}

/** The backup printers typed in a row: trimmed, blanks and the route's own printer left out. */
function backupsOf(row: Row): string[] {
  const names = row.backups
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== row.printer);
  return [...new Set(names)];
}
