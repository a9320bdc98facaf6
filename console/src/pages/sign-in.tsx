import { useState } from 'preact/hooks';
import { ApiError, api, type Session } from '../api.ts';
import { usePageTitle } from '../components/page-title.ts';
import { navigate } from '../router.ts';

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  usePageTitle('Sign in');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError('');
    try {
      const answer = await api<{ data: Session }>('POST', '/console/session', {
        email: form.get('email'),
        password: form.get('password'),
      });
      onSignedIn(answer.data);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The server cannot be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="narrow">
      <h1>Sign in to ShopDesk</h1>
      <form onSubmit={submit}>
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

export function SetPasswordPage() {
  usePageTitle('Choose your password');
  const code = new URLSearchParams(location.hash.slice(1)).get('code') ?? '';
  const [message, setMessage] = useState('');
  const [done, setDone] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    if (form.get('password') !== form.get('again')) {
      setMessage('The two passwords differ.');
      return;
    }
    try {
      await api('POST', '/console/password', { code, password: form.get('password') });
      setDone(true);
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : 'The server cannot be reached.');
    }
  };
  return (
    <main id="main" class="narrow">
      <h1>Choose your password</h1>
      {done ? (
        <p>
          Your password is set.{' '}
          <a href="/console/" onClick={() => navigate('/console/')}>
            Sign in
          </a>
        </p>
      ) : (
        <form onSubmit={submit}>
          <label for="password">Password (at least 10 characters)</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            minLength={10}
            required
          />
          <label for="again">Password again</label>
          <input
            id="again"
            name="again"
            type="password"
            autocomplete="new-password"
            minLength={10}
            required
          />
          {message && (
            <p role="alert" class="error">
              {message}
            </p>
          )}
          <button type="submit">Set password</button>
        </form>
      )}
    </main>
  );
}
