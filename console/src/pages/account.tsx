import { useState } from 'preact/hooks';
import { api, failureMessage, type Session } from '../api.ts';
import { usePageTitle } from '../components/page-title.ts';

/**
 * The signed-in person's account: who they are, and changing their password (every session
 * of theirs ends, this one too: they sign in again with the new one).
 */
export function AccountPage({
  session,
  onSignedOut,
}: {
  session: Session;
  onSignedOut: () => void;
}) {
  usePageTitle('Account');
  const [message, setMessage] = useState('');
  const change = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const password = String(form.get('password'));
    if (password !== String(form.get('again'))) {
      setMessage('The two new passwords differ: type the same one twice.');
      return;
    }
    try {
      await api('PUT', '/console/password', {
        current_password: String(form.get('current')),
        password,
      });
      onSignedOut();
    } catch (failure) {
      setMessage(failureMessage(failure));
    }
  };
  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{session.user.email}</strong>, {session.user.role} of{' '}
        {session.company.name}.
      </p>
      <h2>Change your password</h2>
      <form onSubmit={change}>
        <label for="account-current">Current password</label>
        <input
          id="account-current"
          name="current"
          type="password"
          required
          autoComplete="current-password"
        />
        <label for="account-new">New password (at least 10 characters)</label>
        <input
          id="account-new"
          name="password"
          type="password"
          required
          minLength={10}
          autoComplete="new-password"
        />
        <label for="account-again">New password again</label>
        <input
          id="account-again"
          name="again"
          type="password"
          required
          minLength={10}
          autoComplete="new-password"
        />
        <p>
          Every browser signed in as you is signed out; you sign in again with the new password.
        </p>
        <button type="submit">Change password</button>
      </form>
      <p role="status">{message}</p>
    </>
  );
}
