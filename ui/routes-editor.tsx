import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PrinterProfile } from '../shared/printer-profiles.ts';
import { ProfilePicker } from './profile-picker.tsx';

/**
 * A route as the editor shows it, wherever it is kept: the console's `PUT
 * /console/agents/{uuid}/routes`, the tray's settings on its own PC.
 */
export interface EditedRoute {
  name: string;
  printer: string;
  /** Backup printers in the order tried when the printer cannot print (docs/agent.md). */
  backups: string[];
  enabled: boolean;
  profile: PrinterProfile | undefined;
  /** Which of the routes given it came from (its other settings kept on save); null: added. */
  from: number | null;
}

/** A printer to choose from, with a note people see beside its name ("default"). */
export interface PrinterChoice {
  name: string;
  note?: string;
}

interface Row extends Omit<EditedRoute, 'backups'> {
  key: number;
  /** The backup printers as typed: a comma list, in order. */
  backups: string;
}

let keys = 0;

const rowsOf = (routes: readonly Omit<EditedRoute, 'from'>[]): Row[] =>
  routes.map((route, index) => ({
    ...route,
    key: ++keys,
    backups: route.backups.join(', '),
    from: index,
  }));

type EditorProps = {
  /** The form's name for assistive technology ("Routes of Till 1"). */
  label: string;
  /** Keeps the fields' ids apart when several editors are on one page. */
  idBase: string;
  routes: readonly Omit<EditedRoute, 'from'>[];
  printers: readonly PrinterChoice[];
  save: (routes: EditedRoute[]) => Promise<string>;
  /** Offers an on/off box per route (the server keeps it; the tray does not). */
  withEnabled?: boolean;
  /** Words for a printer the list does not have, beside its name in the picker. */
  notListed: string;
  /** A sentence under a route whose printer the list does not have, saying what to do. */
  notListedAdvice?: (printer: string) => string;
  /** Route names to offer as one-click additions (jobs came for them), with why. */
  suggested?: { intro: string; names: readonly string[] };
  /** More buttons per route (the tray's Test print); `saved`: no change is waiting. */
  rowActions?: (route: { name: string; printer: string }, saved: boolean) => ComponentChildren;
  saveLabel?: string;
  onClose?: () => void;
};

/**
 * Edits routes: each route's name, its printer, backups, printer profile and (where the
 * place keeps it) whether it is on. Where the routes are kept is the caller's: `save` stores
 * them (the console calls the API, the tray the preload bridge) and answers in words, or
 * throws an error whose message says what went wrong. Routes given anew replace the rows
 * until someone changes one; after that the rows are theirs until saved.
 */
export function RoutesEditor(props: EditorProps) {
  const { idBase, printers } = props;
  const [rows, setRows] = useState<Row[]>(() => rowsOf(props.routes));
  const [dirty, setDirty] = useState(false);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  // Compared by content: a page drawn again with the same routes keeps its fields (and the
  // focus). Not run when `dirty` changes: the rows just saved stay until routes come anew.
  const given = JSON.stringify(props.routes);
  const shown = useRef(given);
  useEffect(() => {
    if (dirty || given === shown.current) return;
    shown.current = given;
    setRows(rowsOf(JSON.parse(given)));
  }, [given]);
  const edit = (next: (current: Row[]) => Row[]) => {
    setRows(next);
    setDirty(true);
    setMessage('Not saved yet.');
  };
  const change = (key: number, patch: Partial<Row>) =>
    edit((current) => current.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  const add = (name = '') =>
    edit((current) => [
      ...current,
      {
        key: ++keys,
        name,
        printer: printers[0]?.name ?? '',
        backups: '',
        enabled: true,
        profile: undefined,
        from: null,
      },
    ]);
  const save = async (event: Event) => {
    event.preventDefault();
    const twice = repeatedName(rows);
    if (twice !== undefined) {
      setMessage(`Route "${twice}" is in the list twice: give each route its own name.`);
      return;
    }
    setBusy(true);
    setMessage('');
    try {
      const routes = rows.map(({ key: _key, ...row }) => ({
        ...row,
        name: row.name.trim(),
        backups: backupsOf(row),
      }));
      setMessage(await props.save(routes));
      setDirty(false);
    } catch (failure) {
      setMessage(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  const idOf = (row: Row, field: string) => `${idBase}-${row.key}-${field}`;
  const names = new Set(rows.map((row) => row.name.trim()));
  const suggested = (props.suggested?.names ?? []).filter((name) => !names.has(name));
  return (
    <form onSubmit={save} class="routes-form" aria-label={props.label}>
      {rows.length === 0 && <p>No routes. Add one below.</p>}
      {rows.map((row, index) => (
        <RouteFieldset
          key={row.key}
          row={row}
          index={index}
          idOf={(field) => idOf(row, field)}
          editor={props}
          saved={!dirty}
          change={(patch) => change(row.key, patch)}
          remove={() => edit((current) => current.filter((r) => r.key !== row.key))}
        />
      ))}
      <datalist id={`${idBase}-printers`}>
        {printers.map((printer) => (
          <option key={printer.name} value={printer.name} />
        ))}
      </datalist>
      <EditorActions editor={props} suggested={suggested} busy={busy} add={add} />
      <p role="status">{message}</p>
    </form>
  );
}

/** Routes jobs asked for, one click each; then Add, Save (the one primary action) and Close. */
function EditorActions(props: {
  editor: EditorProps;
  suggested: string[];
  busy: boolean;
  add: (name?: string) => void;
}) {
  const { editor, suggested, busy, add } = props;
  return (
    <>
      {suggested.length > 0 && (
        <p class="suggested-routes">
          {editor.suggested?.intro}{' '}
          {suggested.map((name) => (
            <button key={name} type="button" class="secondary" onClick={() => add(name)}>
              Add {name}
            </button>
          ))}
        </p>
      )}
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => add()}
          disabled={editor.printers.length === 0}
        >
          Add a route
        </button>{' '}
        <button type="submit" disabled={busy}>
          {editor.saveLabel ?? 'Save'}
        </button>
        {editor.onClose && (
          <>
            {' '}
            <button type="button" class="secondary" onClick={editor.onClose}>
              Close
            </button>
          </>
        )}
      </div>
    </>
  );
}

/** One route's fields; a printer the list lacks stays chosen, with words saying so. */
function RouteFieldset(props: {
  row: Row;
  index: number;
  idOf: (field: string) => string;
  editor: EditorProps;
  saved: boolean;
  change: (patch: Partial<Row>) => void;
  remove: () => void;
}) {
  const { row, index, idOf, editor, saved, change, remove } = props;
  const printers = editor.printers;
  const listed = printers.some((printer) => printer.name === row.printer);
  const advice = listed || row.printer === '' ? '' : (editor.notListedAdvice?.(row.printer) ?? '');
  return (
    <fieldset data-route-row={index}>
      <legend>
        Route {index + 1}
        {row.name.trim() && `: ${row.name.trim()}`}
      </legend>
      <label for={idOf('name')}>Route name</label>
      <input
        id={idOf('name')}
        value={row.name}
        required
        maxLength={64}
        pattern="[a-z0-9._\-]{1,64}"
        title="Lower-case letters, digits, dots, dashes and underscores"
        onInput={(event) => change({ name: event.currentTarget.value })}
      />
      <label for={idOf('printer')}>Printer</label>
      <select
        id={idOf('printer')}
        value={row.printer}
        required
        aria-describedby={advice ? idOf('not-listed') : undefined}
        onChange={(event) => change({ printer: event.currentTarget.value })}
      >
        {row.printer === '' && (
          <option value="" disabled>
            Choose a printer…
          </option>
        )}
        {!listed && row.printer !== '' && (
          <option value={row.printer}>
            {row.printer} ({editor.notListed})
          </option>
        )}
        {printers.map((printer) => (
          <option key={printer.name} value={printer.name}>
            {printer.name}
            {printer.note && ` (${printer.note})`}
          </option>
        ))}
      </select>
      {advice && (
        <p id={idOf('not-listed')} class="route-problem">
          {advice}
        </p>
      )}
      <label for={idOf('backups')}>Backup printers (optional)</label>
      <input
        id={idOf('backups')}
        value={row.backups}
        list={`${editor.idBase}-printers`}
        placeholder="e.g. Front-2, Office"
        aria-describedby={idOf('backups-help')}
        onInput={(event) => change({ backups: event.currentTarget.value })}
      />
      <small id={idOf('backups-help')}>
        Used in this order when the printer cannot print (out of paper, offline). Each job prints
        once, on one printer. Separate names with commas.
      </small>
      <ProfilePicker
        idBase={idOf('p')}
        profile={row.profile}
        onChange={(profile) => change({ profile })}
      />
      {editor.withEnabled && (
        <label class="check">
          <input
            type="checkbox"
            checked={row.enabled}
            onChange={(event) => change({ enabled: event.currentTarget.checked })}
          />{' '}
          Enabled
        </label>
      )}
      <div class="route-actions">
        {editor.rowActions?.(row, saved)}
        <button type="button" class="danger" onClick={remove}>
          Remove route {index + 1}
        </button>
      </div>
    </fieldset>
  );
}

/** A route name that two rows share (a route has one printer list), if any. */
function repeatedName(rows: readonly Row[]): string | undefined {
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/** The backup printers typed in a row: trimmed, blanks and the route's own printer left out. */
function backupsOf(row: { backups: string; printer: string }): string[] {
  const names = row.backups
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== row.printer);
  return [...new Set(names)];
}
