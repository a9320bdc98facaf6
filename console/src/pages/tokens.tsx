import { useState } from 'preact/hooks';
import { ApiError, api, type Session } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { useLoad } from '../load.ts';
import { when } from '../words.ts';

interface Token {
  id: number;
  name: string;
  permissions: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export function TokensPage({ session }: { session: Session }) {
  usePageTitle('Tokens');
  const { data, error, reload } = useLoad(
    () => api<{ data: Token[] }>('GET', '/console/tokens').then((a) => a.data),
    [],
  );
  const [issued, setIssued] = useState<{ name: string; secret: string } | null>(null);
  const [message, setMessage] = useState('');
  const offered = session.grantable ?? [];
  // As the server rules: a token is revoked only by a role that could have made it.
  const mayRevoke = (token: Token) => token.permissions.every((p) => offered.includes(p));
  const create = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    setMessage('');
    try {
      const answer = await api<{ data: Token & { secret: string } }>('POST', '/console/tokens', {
        name: form.get('name'),
        permissions: form.getAll('permissions'),
      });
      setIssued({ name: answer.data.name, secret: answer.data.secret });
      formElement.reset();
      reload();
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  const revoke = async (token: Token) => {
    if (!confirm(`Revoke the token "${token.name}"? Programs using it stop working at once.`))
      return;
    await api('POST', `/console/tokens/${token.id}/revoke`).catch((failure: unknown) =>
      setMessage(failure instanceof ApiError ? failure.message : String(failure)),
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
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.map((token) => (
              <tr key={token.id} data-token={token.name}>
                <td data-label="Name">{token.name}</td>
                <td data-label="Permissions">{token.permissions.join(', ')}</td>
                <td data-label="Created">{when(token.created_at)}</td>
                <td data-label="State">
                  {token.revoked_at ? `Revoked ${when(token.revoked_at)}` : 'Active'}
                </td>
                <td data-label="Actions">
                  {!token.revoked_at && mayRevoke(token) && (
                    <button
                      type="button"
                      class="danger"
                      onClick={() => revoke(token)}
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
      )}
      <h2>New token</h2>
      <form onSubmit={create}>
        <label for="token-name">Name</label>
        <input id="token-name" name="name" required maxLength={255} />
        <fieldset>
          <legend>Permissions</legend>
          {offered.map((permission) => (
            <label key={permission} class="check">
              <input type="checkbox" name="permissions" value={permission} /> {permission}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create token</button>
      </form>
      <p role="status">{message}</p>
      {issued && (
        <section class="secret" aria-label="New token">
          <p>
            The token <strong>{issued.name}</strong>. Copy it now: it is not shown again.
          </p>
          <code data-testid="token-secret">{issued.secret}</code>{' '}
          <button type="button" onClick={() => navigator.clipboard?.writeText(issued.secret)}>
            Copy
          </button>
        </section>
      )}
    </>
  );
}
