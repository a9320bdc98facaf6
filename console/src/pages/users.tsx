import { useState } from 'preact/hooks';
import { ApiError, api, type Session } from '../api.ts';
import { usePageTitle } from '../components/page-title.ts';
import { useLoad } from '../load.ts';

interface User {
  id: number;
  email: string;
  role: string;
  active: boolean;
}

export function UsersPage({ session }: { session: Session }) {
  usePageTitle('Users');
  const { data, error, reload } = useLoad(
    () => api<{ data: User[] }>('GET', '/console/users').then((a) => a.data),
    [],
  );
  const [message, setMessage] = useState('');
  const invite = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    try {
      const answer = await api<{ data: { setup_url: string } }>('POST', '/console/users', {
        email: form.get('email'),
        role: form.get('role'),
      });
      setMessage(
        `Send this link to the person; it sets their password once: ${answer.data.setup_url}`,
      );
      formElement.reset();
      reload();
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  const remove = async (user: User) => {
    if (!confirm(`Remove ${user.email}? They are signed out at once.`)) return;
    await api('DELETE', `/console/users/${user.id}`).catch((failure: unknown) =>
      setMessage(failure instanceof ApiError ? failure.message : String(failure)),
    );
    reload();
  };
  return (
    <>
      <h1>Users</h1>
      {error && <p role="alert">{error}</p>}
      <ul>
        {data?.map((user) => (
          <li key={user.id}>
            {user.email} ({user.role}){!user.active && ', has not set a password yet'}{' '}
            {user.id !== session.user.id && (
              <button
                type="button"
                class="danger"
                onClick={() => remove(user)}
                aria-label={`Remove ${user.email}`}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <h2>Invite someone</h2>
      <form onSubmit={invite}>
        <label for="invite-email">E-mail</label>
        <input id="invite-email" name="email" type="email" required />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          <option value="staff">Staff: jobs and printers</option>
          <option value="manager">Manager: also agents, tokens and webhooks</option>
          <option value="owner">Owner: everything, and users</option>
        </select>
        <button type="submit">Invite</button>
      </form>
      <p role="status">{message}</p>
    </>
  );
}
