import { useEffect, useRef, useState } from 'preact/hooks';
import type { AddedCloudPrntPrinter, CloudPrinterKind } from '../../../shared/cloudprnt.ts';
import { ApiError, api } from '../api.ts';

type Added = AddedCloudPrntPrinter & { kind: CloudPrinterKind };

/** One setting to type into the printer, with its Copy button (`spoken`: the button's name). */
function Setting(props: { label: string; spoken: string; value: string; testId: string }) {
  return (
    <div class="setting">
      <dt>{props.label}</dt>
      <dd>
        <code data-testid={props.testId}>{props.value}</code>{' '}
        <button
          type="button"
          aria-label={`Copy the ${props.spoken}`}
          onClick={() => navigator.clipboard?.writeText(props.value)}
        >
          Copy
        </button>
      </dd>
    </div>
  );
}

/** What to type where, in the printer's own settings page, for each kind (docs/cloudprnt.md). */
function PrinterSettings({ added }: { added: Added }) {
  if (added.kind === 'epson') {
    return (
      <>
        <ol>
          <li>
            Open the printer's settings page, EPSON TMNet WebConfig: type the printer's IP address
            into a browser.
          </li>
          <li>
            In <strong>Server Direct Print</strong>: choose Enable, type in the URL, ID and password
            below, and set the Interval to 5 seconds.
          </li>
          <li>
            In <strong>Status Notification</strong>: the same, with the same three values. Then
            ShopDesk knows at once when the paper runs out or the cover is open.
          </li>
        </ol>
        <p>The password is not shown again.</p>
        <dl>
          <Setting label="URL" spoken="URL" value={added.url} testId="cloudprnt-url" />
          <Setting label="ID" spoken="ID" value={added.user} testId="cloudprnt-user" />
          <Setting
            label="Password"
            spoken="password"
            value={added.password}
            testId="cloudprnt-password"
          />
        </dl>
      </>
    );
  }
  return (
    <>
      <p>
        Open the printer's web page (type its IP address into a browser), go to its CloudPRNT
        settings and type these in; a polling time of 5 seconds is right. The password is not shown
        again.
      </p>
      <dl>
        <Setting label="Server URL" spoken="server URL" value={added.url} testId="cloudprnt-url" />
        <Setting label="User Name" spoken="user name" value={added.user} testId="cloudprnt-user" />
        <Setting
          label="Password"
          spoken="password"
          value={added.password}
          testId="cloudprnt-password"
        />
      </dl>
    </>
  );
}

/** The form's fields: which kind of printer, the route it prints, its name. */
function PrinterFields() {
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <>
      <fieldset>
        <legend>Kind of printer</legend>
        <label class="check">
          <input ref={first} type="radio" name="kind" value="star" defaultChecked /> Star, with
          CloudPRNT (mC-Print3, TSP100IV, mC-Label3…)
        </label>
        <label class="check">
          <input type="radio" name="kind" value="epson" /> Epson TM-i or TM-DT, with Server Direct
          Print
        </label>
      </fieldset>
      <label for="cloudprnt-route">Route it prints</label>
      <input
        id="cloudprnt-route"
        name="route"
        required
        maxLength={64}
        pattern="[a-z0-9._\-]{1,64}"
        placeholder="kitchen"
      />
      <label for="cloudprnt-name">Name</label>
      <input id="cloudprnt-name" name="name" maxLength={255} placeholder="Kitchen printer" />
    </>
  );
}

/**
 * "Add a CloudPRNT or Epson printer": a printer that fetches its own work, with no computer
 * beside it (docs/cloudprnt.md): a Star with CloudPRNT, or an Epson with Server Direct Print.
 * Asks the kind, the route it prints and a name, then shows once the values to type into the
 * printer's own settings, in that printer's words, each with Copy, the focus on them.
 */
export function AddCloudPrntPrinter({ onAdded }: { onAdded: () => void }) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState<Added | null>(null);
  const [error, setError] = useState('');
  const shown = useRef<HTMLElement>(null);
  useEffect(() => {
    if (added) shown.current?.focus();
  }, [added]);
  const add = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const name = String(form.get('name') ?? '').trim();
    const kind: CloudPrinterKind = form.get('kind') === 'epson' ? 'epson' : 'star';
    setError('');
    try {
      const answer = await api<{ data: AddedCloudPrntPrinter }>('POST', '/cloudprnt/printers', {
        route: form.get('route'),
        kind,
        ...(name && { name }),
      });
      setAdded({ ...answer.data, kind });
      setOpen(false);
      onAdded();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  return (
    <div class="enrol">
      {!open && (
        <button
          type="button"
          onClick={() => {
            setOpen(true);
            setAdded(null);
          }}
        >
          Add a CloudPRNT or Epson printer
        </button>
      )}
      {open && (
        <form onSubmit={add} aria-label="Add a CloudPRNT or Epson printer">
          <p>These printers fetch their own jobs over the network: they need no computer.</p>
          <PrinterFields />
          <button type="submit">Add printer</button>{' '}
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </form>
      )}
      {error && <p role="alert">{error}</p>}
      {added && (
        <section
          class="secret"
          aria-label="The new printer's settings"
          tabIndex={-1}
          ref={shown}
          data-testid="cloudprnt-settings"
        >
          <PrinterSettings added={added} />
        </section>
      )}
    </div>
  );
}

/**
 * "Revoke its password" on the agent of a printer that fetches its own work (CloudPRNT,
 * Epson): confirmed in words, then its next request is refused. Its place of "Re-enrol this computer", which a printer has no use for.
 */
export function RevokeCloudPrntPrinter({
  agentId,
  agentName,
  onRevoked,
}: {
  agentId: string;
  agentName: string;
  onRevoked: () => void;
}) {
  const [message, setMessage] = useState('');
  const revoke = async () => {
    const question = `Revoke the password of ${agentName}? The printer stops printing at once; to print again it needs a new password (Add a CloudPRNT or Epson printer).`;
    if (!confirm(question)) return;
    try {
      await api('POST', `/cloudprnt/printers/${agentId}/revoke`);
      setMessage(`${agentName}'s password is revoked: it no longer fetches jobs.`);
      onRevoked();
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  return (
    <div class="enrol">
      <button type="button" aria-label={`Revoke its password: ${agentName}`} onClick={revoke}>
        Revoke its password
      </button>
      {message && <p role="status">{message}</p>}
    </div>
  );
}
