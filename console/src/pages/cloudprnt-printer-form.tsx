import { useEffect, useRef, useState } from 'preact/hooks';
import type { AddedCloudPrntPrinter } from '../../../shared/cloudprnt.ts';
import { ApiError, api } from '../api.ts';

type Added = AddedCloudPrntPrinter;

/** One setting of the printer's CloudPRNT page, with its Copy button. */
function Setting({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div class="setting">
      <dt>{label}</dt>
      <dd>
        <code data-testid={testId}>{value}</code>{' '}
        <button
          type="button"
          aria-label={`Copy the ${label.toLowerCase()}`}
          onClick={() => navigator.clipboard?.writeText(value)}
        >
          Copy
        </button>
      </dd>
    </div>
  );
}

/**
 * "Add a CloudPRNT printer": a Star printer that fetches its own work, with no computer beside
 * it (docs/cloudprnt.md). Asks the route it prints and a name, then shows once the three values
 * to type into the printer's CloudPRNT settings, each with Copy, the focus on them.
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
    setError('');
    try {
      const answer = await api<{ data: Added }>('POST', '/cloudprnt/printers', {
        route: form.get('route'),
        ...(name && { name }),
      });
      setAdded(answer.data);
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
          Add a CloudPRNT printer
        </button>
      )}
      {open && (
        <form onSubmit={add} aria-label="Add a CloudPRNT printer">
          <p>A Star printer with CloudPRNT fetches its own jobs: it needs no computer.</p>
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
          <p>
            Open the printer's web page, go to its CloudPRNT settings and type these in. The
            password is not shown again.
          </p>
          <dl>
            <Setting label="Server URL" value={added.url} testId="cloudprnt-url" />
            <Setting label="User name" value={added.user} testId="cloudprnt-user" />
            <Setting label="Password" value={added.password} testId="cloudprnt-password" />
          </dl>
        </section>
      )}
    </div>
  );
}

/**
 * "Revoke its password" on a CloudPRNT printer's agent: confirmed in words, then its next poll
 * is refused. Its place of "Re-enrol this computer", which a printer has no use for.
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
    const question = `Revoke the password of ${agentName}? The printer stops printing at once; to print again it needs a new password (Add a CloudPRNT printer).`;
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
