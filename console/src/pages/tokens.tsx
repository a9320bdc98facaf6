import { useState } from 'preact/hooks';
import type { ConsoleTokenRecord, IssuedConsoleToken } from '../../../shared/console.ts';
import { permissionGroups, permissionPresets } from '../../../shared/permission-groups.ts';
import type { Permission } from '../../../shared/permissions.ts';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, failureMessage, type Session } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { SecretDialog } from '../components/secret-dialog.tsx';
import { useLoad } from '../load.ts';
import { count, when } from '../words.ts';

/** `Printing: Send print jobs, See print jobs and agents`, area by area. */
function permissionsInWords(granted: readonly Permission[]): string {
  return permissionGroups
    .map((group) => {
      const words = group.permissions
        .filter((entry) => granted.includes(entry.permission))
        .map((entry) => entry.words);
      return words.length > 0 ? `${group.area}: ${words.join(', ')}` : null;
    })
    .filter(Boolean)
    .join('; ');
}

/**
 * API tokens: the list with Revoke, and a new token made from a preset (Till, Read only,
 * Everything) or permissions chosen by area; its secret is shown once, in a dialog with Copy
 * and the keyboard on it.
 */
export function TokensPage({ session }: { session: Session }) {
  usePageTitle('Tokens');
  const { data, error, reload } = useLoad(
    () => api<{ data: ConsoleTokenRecord[] }>('GET', '/console/tokens').then((a) => a.data),
    [],
  );
  const [issued, setIssued] = useState<{ name: string; secret: string } | null>(null);
  const [message, setMessage] = useState('');
  const offered = (session.grantable ?? []) as Permission[];
  const [chosen, setChosen] = useState<Permission[]>([]);
  // As the server rules: a token is revoked only by a role that could have made it.
  const mayRevoke = (token: ConsoleTokenRecord) =>
    token.permissions.every((p) => offered.includes(p));
  const toggle = (permission: Permission, on: boolean) =>
    setChosen((current) =>
      on ? [...current, permission] : current.filter((entry) => entry !== permission),
    );
  const create = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    setMessage('');
    if (chosen.length === 0) {
      setMessage('Choose what the token may do: a preset, or permissions below.');
      return;
    }
    try {
      const answer = await api<{ data: IssuedConsoleToken }>('POST', '/console/tokens', {
        name: form.get('name'),
        permissions: chosen,
      });
      setIssued({ name: answer.data.name, secret: answer.data.secret });
      formElement.reset();
      setChosen([]);
      reload();
    } catch (failure) {
      setMessage(failureMessage(failure));
    }
  };
  const revoke = async (token: ConsoleTokenRecord) => {
    if (!confirm(`Revoke the token "${token.name}"? Programs using it stop working at once.`))
      return;
    await api('POST', `/console/tokens/${token.id}/revoke`).catch((failure: unknown) =>
      setMessage(failureMessage(failure)),
    );
    reload();
  };
  return (
    <>
      <h1>Tokens</h1>
      <p>API tokens let your shop system and other programs use ShopDesk.</p>
      {error && <p role="alert">{error}</p>}
      {data && data.length === 0 && (
        <EmptyState title="No API token yet.">
          <p>
            Your till or shop software needs a token to send print jobs. Make one under New token
            below, with the permissions it needs.
          </p>
        </EmptyState>
      )}
      {data && data.length > 0 && (
        <TokenTable tokens={data} mayRevoke={mayRevoke} revoke={revoke} />
      )}
      <h2>New token</h2>
      <form onSubmit={create}>
        <label for="token-name">Name</label>
        <input id="token-name" name="name" required maxLength={255} />
        <fieldset>
          <legend>Start from</legend>
          <div class="actions">
            {permissionPresets.map((preset) => (
              <button
                key={preset.name}
                type="button"
                class="secondary"
                onClick={() => setChosen(preset.pick(offered))}
              >
                {preset.name}
              </button>
            ))}
          </div>
        </fieldset>
        {permissionGroups.map((group) => {
          const entries = group.permissions.filter((entry) => offered.includes(entry.permission));
          if (entries.length === 0) return null;
          return (
            <fieldset key={group.area}>
              <legend>{group.area}</legend>
              {entries.map((entry) => (
                <label key={entry.permission} class="check" title={entry.permission}>
                  <input
                    type="checkbox"
                    name="permissions"
                    value={entry.permission}
                    checked={chosen.includes(entry.permission)}
                    onChange={(event) => toggle(entry.permission, event.currentTarget.checked)}
                  />{' '}
                  {entry.words}
                </label>
              ))}
            </fieldset>
          );
        })}
        <p>
          {chosen.length === 0
            ? 'Nothing chosen yet.'
            : `${count(chosen.length, 'permission')} chosen.`}
        </p>
        <button type="submit">Create token</button>
      </form>
      <p role="status">{message}</p>
      <SecretDialog
        title="New token"
        label="Token"
        value={issued?.secret ?? null}
        onClose={() => setIssued(null)}
      >
        <p>
          The token <strong>{issued?.name}</strong>. Copy it now into the program that uses it: it
          is not shown again.
        </p>
      </SecretDialog>
    </>
  );
}

/** The tokens, newest first, with Revoke where this role could have made the token. */
function TokenTable(props: {
  tokens: ConsoleTokenRecord[];
  mayRevoke: (token: ConsoleTokenRecord) => boolean;
  revoke: (token: ConsoleTokenRecord) => void;
}) {
  return (
    <table class="list">
      <ColumnHeads names={['Name', 'May', 'Created', 'State']} actions />
      <tbody>
        {props.tokens.map((token) => (
          <tr key={token.id} data-token={token.name}>
            <td data-label="Name">{token.name}</td>
            <td data-label="Permissions">{permissionsInWords(token.permissions)}</td>
            <td data-label="Created">{when(token.created_at)}</td>
            <td data-label="State">
              {token.revoked_at ? `Revoked ${when(token.revoked_at)}` : 'Active'}
            </td>
            <td data-label="Actions">
              {!token.revoked_at && props.mayRevoke(token) && (
                <button
                  type="button"
                  class="danger"
                  onClick={() => props.revoke(token)}
                  aria-label={`Revoke ${token.name}`}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
