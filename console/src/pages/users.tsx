import { useState } from 'preact/hooks';
import type {
  ConsoleRole,
  ConsoleUserRecord,
  InvitationRecord,
  PasswordResetRecord,
} from '../../../shared/console.ts';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, failureMessage, type Session } from '../api.ts';
import { usePageTitle } from '../components/page-title.ts';
import { SecretDialog } from '../components/secret-dialog.tsx';
import { useLoad } from '../load.ts';

const roleWords: Record<ConsoleRole, string> = {
  staff: 'Staff: jobs and printers',
  manager: 'Manager: also agents, tokens and webhooks',
  owner: 'Owner: everything, and users',
};
const roles = Object.keys(roleWords) as ConsoleRole[];

/**
 * The company's console users (owners): invite someone, change a role, reset a password
 * (a one-time link, shown in a dialog with Copy), remove someone.
 */
export function UsersPage({ session }: { session: Session }) {
  usePageTitle('Users');
  const { data, error, reload } = useLoad(
    () => api<{ data: ConsoleUserRecord[] }>('GET', '/console/users').then((a) => a.data),
    [],
  );
  const [message, setMessage] = useState('');
  const [link, setLink] = useState<{ title: string; text: string; url: string } | null>(null);
  const invite = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    try {
      const answer = await api<{ data: InvitationRecord }>('POST', '/console/users', {
        email: form.get('email'),
        role: form.get('role'),
      });
      setLink({
        title: `Invitation for ${String(form.get('email'))}`,
        text: 'Send this link to the person: it sets their password, once, within 72 hours.',
        url: answer.data.setup_url,
      });
      formElement.reset();
      reload();
    } catch (failure) {
      setMessage(failureMessage(failure));
    }
  };
  const act = async (what: () => Promise<unknown>) => {
    setMessage('');
    try {
      await what();
      reload();
    } catch (failure) {
      setMessage(failureMessage(failure));
    }
  };
  const remove = (user: ConsoleUserRecord) => {
    if (!confirm(`Remove ${user.email}? They are signed out at once.`)) return;
    void act(() => api('DELETE', `/console/users/${user.id}`));
  };
  const changeRole = (user: ConsoleUserRecord, role: ConsoleRole) =>
    act(async () => {
      await api('PATCH', `/console/users/${user.id}`, { role });
      setMessage(`${user.email} is now ${role}.`);
    });
  const reset = (user: ConsoleUserRecord) => {
    if (
      !confirm(
        `Reset the password of ${user.email}? Their password stops working and they are signed out; a link sets a new one.`,
      )
    )
      return;
    void act(async () => {
      const answer = await api<{ data: PasswordResetRecord }>(
        'POST',
        `/console/users/${user.id}/password-reset`,
      );
      setLink({
        title: `Password reset for ${user.email}`,
        text: 'Send this link to the person: it sets their new password, once, within 72 hours.',
        url: answer.data.setup_url,
      });
    });
  };
  return (
    <>
      <h1>Users</h1>
      <p>The people who sign in to this console, and what each may do.</p>
      {error && <p role="alert">{error}</p>}
      {data && (
        <table class="list">
          <ColumnHeads names={['E-mail', 'Role']} actions />
          <tbody>
            {data.map((user) => (
              <tr key={user.id} data-user={user.email}>
                <td data-label="E-mail">
                  {user.email}
                  {user.id === session.user.id && ' (you)'}
                  {!user.active && ', has not set a password yet'}
                </td>
                <td data-label="Role">
                  <select
                    aria-label={`Role of ${user.email}`}
                    value={user.role}
                    onChange={(event) => changeRole(user, event.currentTarget.value as ConsoleRole)}
                  >
                    <RoleOptions />
                  </select>
                </td>
                <td data-label="Actions">
                  {user.id !== session.user.id && (
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => reset(user)}
                        aria-label={`Reset password of ${user.email}`}
                      >
                        Reset password
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => remove(user)}
                        aria-label={`Remove ${user.email}`}
                      >
                        Remove
                      </button>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p role="status">{message}</p>
      <h2>Invite someone</h2>
      <form onSubmit={invite}>
        <label for="invite-email">E-mail</label>
        <input id="invite-email" name="email" type="email" required />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          <RoleOptions />
        </select>
        <button type="submit">Invite</button>
      </form>
      <SecretDialog
        title={link?.title ?? ''}
        label="One-time link"
        value={link?.url ?? null}
        onClose={() => setLink(null)}
      >
        <p>{link?.text} It is not shown again.</p>
      </SecretDialog>
    </>
  );
}

/** The roles to choose from, in words. */
function RoleOptions() {
  return (
    <>
      {roles.map((role) => (
        <option key={role} value={role}>
          {roleWords[role]}
        </option>
      ))}
    </>
  );
}
