import { useState } from 'preact/hooks';
import type { CreatedEnrollment, EnrollmentRecord } from '../../../shared/enrollments.ts';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, failureMessage, type Page } from '../api.ts';
import { CopyField } from '../components/copy-field.tsx';
import { Dialog } from '../components/dialog.tsx';
import { useLoad } from '../load.ts';
import { count, when } from '../words.ts';

/** How long a code lasts, as offered: a roll-out of a few PCs takes an hour or a day. */
const lifetimes: Array<[seconds: number, words: string]> = [
  [3600, '1 hour'],
  [8 * 3600, '8 hours'],
  [24 * 3600, '24 hours'],
  [7 * 24 * 3600, '7 days'],
];

const routeListPattern = /^[a-z0-9._-]{1,64}$/;

/** `receipts, labels` typed → the names; the bad ones apart, to say so. */
function typedRoutes(text: string): { names: string[]; bad: string[] } {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return {
    names: parts.filter((part) => routeListPattern.test(part)),
    bad: parts.filter((part) => !routeListPattern.test(part)),
  };
}

/**
 * "Enrol an agent": a dialog that asks what the code grants (the company's known routes,
 * others typed), how many computers, for how long and an optional agent name, then shows the
 * code large with Copy, the server's address and the exact command line for a headless PC.
 * An agent asking for a route the code does not grant is refused without spending the code
 * (docs/it-guide.md, "Enrol a PC").
 */
export function EnrolAgent({ knownRoutes, onMade }: { knownRoutes: string[]; onMade: () => void }) {
  const [open, setOpen] = useState(false);
  const [made, setMade] = useState<{ code: CreatedEnrollment; agentName: string } | null>(null);
  const [error, setError] = useState('');
  const close = () => {
    setOpen(false);
    setMade(null);
    setError('');
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const typed = typedRoutes(String(form.get('other_routes') ?? ''));
    if (typed.bad.length > 0) {
      setError(
        `Route names are lower-case letters, digits, dots, dashes and underscores: ${typed.bad.join(', ')} is not one.`,
      );
      return;
    }
    const routes = [...new Set([...form.getAll('routes').map(String), ...typed.names])];
    if (routes.length === 0) {
      setError('Choose at least one route: an agent serves only the routes its code grants.');
      return;
    }
    const agentName = String(form.get('agent_name') ?? '').trim();
    setError('');
    try {
      const answer = await api<{ data: CreatedEnrollment }>('POST', '/printing/enrollments', {
        routes,
        uses: Number(form.get('uses')),
        expires_in: Number(form.get('expires_in')),
        name: agentName || 'From the console',
      });
      setMade({ code: answer.data, agentName });
      onMade();
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Enrol an agent
      </button>
      <Dialog open={open} title={made ? 'Enrolment code' : 'Enrol an agent'} onClose={close}>
        {made ? (
          <MadeCode code={made.code} agentName={made.agentName} />
        ) : (
          <form onSubmit={submit} class="enrol-form" aria-label="Enrol an agent">
            <fieldset>
              <legend>Routes the agent serves</legend>
              {knownRoutes.length === 0 && <p>No route is known yet: type the first ones below.</p>}
              {knownRoutes.map((route, index) => (
                <label key={route} class="check">
                  <input
                    type="checkbox"
                    name="routes"
                    value={route}
                    data-autofocus={index === 0 ? '' : undefined}
                  />{' '}
                  {route}
                </label>
              ))}
              <label for="enrol-other-routes">
                {knownRoutes.length === 0 ? 'Routes' : 'Other routes'} (separated by commas)
              </label>
              <input
                id="enrol-other-routes"
                name="other_routes"
                placeholder="e.g. receipts, labels"
                data-autofocus={knownRoutes.length === 0 ? '' : undefined}
              />
            </fieldset>
            <label for="enrol-uses">How many computers it enrols</label>
            <input id="enrol-uses" name="uses" type="number" min={1} max={10000} defaultValue="1" />
            <label for="enrol-expires">Valid for</label>
            <select id="enrol-expires" name="expires_in">
              {lifetimes.map(([seconds, words]) => (
                <option key={seconds} value={String(seconds)} selected={seconds === 24 * 3600}>
                  {words}
                </option>
              ))}
            </select>
            <label for="enrol-agent-name">Agent name (optional)</label>
            <input
              id="enrol-agent-name"
              name="agent_name"
              maxLength={200}
              placeholder="e.g. Front till"
            />
            {error && <p role="alert">{error}</p>}
            <div class="actions">
              <button type="submit">Make the code</button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}

/** The code, shown once: large, with Copy, and what to do with it on each kind of PC. */
function MadeCode({ code, agentName }: { code: CreatedEnrollment; agentName: string }) {
  const server = location.origin;
  const name = agentName ? ` --name "${agentName.replaceAll('"', '')}"` : '';
  const command = `shopdesk agent --server ${server} --enroll ${code.code}${name}`;
  return (
    <div class="made-code">
      <CopyField label="Enrolment code" value={code.code} focus large />
      <p>
        Grants {code.routes.join(', ')} · enrols {count(code.uses, 'computer')} · valid until{' '}
        {when(code.expires_at)}. It is not shown again; an agent that asks for another route is
        refused and the code stays usable.
      </p>
      <CopyField label="Server address" value={server} />
      <h3>On a PC with the tray app</h3>
      <p>
        Install ShopDesk Print Agent from the package IT publishes (docs/agent-install.md,
        "Packages"). In its window, type the server address, then the code where it asks for the
        agent token, and Save.
      </p>
      <h3>On a PC without a screen (headless)</h3>
      <CopyField label="Command line" value={command} />
      <p>
        The routes go to the computer's default printer; add{' '}
        <code>--route {code.routes[0] ?? 'receipts'}=PRINTER</code> to choose another.
      </p>
    </div>
  );
}

/** The company's active codes, each with Revoke (the agents it enrolled keep their tokens). */
export function EnrolmentCodes({ version }: { version: number }) {
  const { data, error, reload } = useLoad(
    () => api<Page<EnrollmentRecord>>('GET', '/printing/enrollments?per_page=100'),
    [version],
  );
  const [message, setMessage] = useState('');
  const active = (data?.data ?? []).filter((code) => code.state === 'active');
  const revoke = async (code: EnrollmentRecord) => {
    const label = code.name ?? `code ${code.id}`;
    if (!confirm(`Revoke the enrolment code "${label}"? No computer can enrol with it any more.`))
      return;
    try {
      await api('POST', `/printing/enrollments/${code.id}/revoke`);
      setMessage(`The code "${label}" is revoked.`);
      reload();
    } catch (failure) {
      setMessage(failureMessage(failure));
    }
  };
  return (
    <section aria-labelledby="codes-heading" class="codes">
      <h2 id="codes-heading">Active enrolment codes</h2>
      {error && <p role="alert">{error}</p>}
      {data && active.length === 0 && (
        <p>No active code. "Enrol an agent" makes one for the next computer.</p>
      )}
      {active.length > 0 && (
        <table class="list">
          <ColumnHeads names={['For', 'Routes', 'Used', 'Valid until']} actions />
          <tbody>
            {active.map((code) => (
              <tr key={code.id} data-code={code.id}>
                <td data-label="For">
                  {code.agent_id ? `Re-enrol ${code.agent_id.slice(0, 8)}` : (code.name ?? '—')}
                </td>
                <td data-label="Routes">{code.routes.join(', ') || 'none'}</td>
                <td data-label="Used">
                  {code.used} of {count(code.uses, 'computer')}
                </td>
                <td data-label="Valid until">{when(code.expires_at)}</td>
                <td data-label="Actions">
                  <button
                    type="button"
                    class="danger"
                    onClick={() => revoke(code)}
                    aria-label={`Revoke the code ${code.name ?? code.id}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p role="status">{message}</p>
    </section>
  );
}
