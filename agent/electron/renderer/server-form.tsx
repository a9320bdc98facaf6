import { useState } from 'preact/hooks';
import type { SettingsView } from '../common/ipc.ts';
import { bridge, settle } from './bridge.ts';

type Outcome = { text: string; ok: boolean | null };

/** The address as typed, if it is one the agent can call (http or https). */
function serverUrlOf(typed: string): string | null {
  try {
    const url = new URL(typed.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? typed.trim() : null;
  } catch {
    return null;
  }
}

/**
 * The server's address and the agent token (or an enrolment code), tested and saved through
 * the bridge. The token is never shown back: the main process only says whether one is saved.
 */
export function ServerForm(props: { settings: SettingsView | null }) {
  const { settings } = props;
  const [typedUrl, setTypedUrl] = useState<string | null>(null);
  const [token, setToken] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>({ text: '', ok: null });
  const [testing, setTesting] = useState(false);
  const serverUrl = typedUrl ?? settings?.serverUrl ?? '';
  const hasToken = settings?.hasToken ?? false;

  const request = (): { serverUrl: string; token?: string } | null => {
    const url = serverUrlOf(serverUrl);
    setInvalid(url === null);
    if (url === null) {
      setOutcome({
        text: 'Enter the server address, like https://shopdesk.example.com',
        ok: false,
      });
      return null;
    }
    if (!token.trim() && !hasToken) {
      setOutcome({ text: 'Enter the agent token.', ok: false });
      return null;
    }
    return token.trim() ? { serverUrl: url, token: token.trim() } : { serverUrl: url };
  };
  const test = async () => {
    const asked = request();
    if (!asked) return;
    setTesting(true);
    setOutcome({ text: 'Testing…', ok: null });
    const result = await settle(() => bridge.testConnection(asked));
    setTesting(false);
    setOutcome({ text: result.message ?? '', ok: result.ok });
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const asked = request();
    if (!asked) return;
    const startAtLogin = settings?.startAtLogin ?? false;
    const result = await settle(() => bridge.saveSettings({ ...asked, startAtLogin }));
    if (result.ok) setToken('');
    setOutcome({ text: result.ok ? 'Connection saved.' : result.message, ok: result.ok });
  };
  const outcomeClass = outcome.ok === null ? '' : outcome.ok ? ' message-ok' : ' message-bad';
  return (
    <section class="card" aria-labelledby="server-title">
      <div class="card-head">
        <h2 id="server-title">Server connection</h2>
      </div>
      <form class="form" autocomplete="off" noValidate onSubmit={save}>
        <ServerUrlField url={serverUrl} invalid={invalid} onInput={setTypedUrl} />
        <TokenField token={token} hasToken={hasToken} onInput={setToken} />
        <StartAtLogin checked={settings?.startAtLogin ?? false} />
        <div class="card-foot">
          <p class={`message${outcomeClass}`} role="status">
            {outcome.text}
          </p>
          <div class="button-row">
            <button type="button" class="button" disabled={testing} onClick={() => void test()}>
              Test connection
            </button>
            <button type="submit" class="button button-primary">
              Save connection
            </button>
          </div>
        </div>
      </form>
    </section>
  );
}

/** The address as typed; marked invalid when it is not one the agent can call. */
function ServerUrlField(props: { url: string; invalid: boolean; onInput: (url: string) => void }) {
  return (
    <label class="field">
      <span class="label">Server address</span>
      <input
        id="server-url"
        class="input"
        type="url"
        placeholder="https://shopdesk.example.com"
        spellcheck={false}
        value={props.url}
        aria-invalid={props.invalid}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
    </label>
  );
}

/** The token is write-only here: the main process only says whether one is saved. */
function TokenField(props: { token: string; hasToken: boolean; onInput: (token: string) => void }) {
  return (
    <label class="field">
      <span class="label">Agent token</span>
      <input
        id="token"
        class="input"
        type="password"
        spellcheck={false}
        value={props.token}
        aria-describedby="token-hint"
        placeholder={
          props.hasToken ? '•••••••• (saved)' : 'The enrolment code (K7QF-M2XD) or the agent token'
        }
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      <span id="token-hint" class="hint">
        {props.hasToken
          ? 'A token is saved. Leave this empty to keep it.'
          : 'Type the enrolment code IT gave you, or paste an agent token; what it gives is stored encrypted on this PC.'}
      </span>
    </label>
  );
}

/** Saved at once: the main process registers or removes the login item. */
function StartAtLogin(props: { checked: boolean }) {
  return (
    <label class="checkbox">
      <input
        type="checkbox"
        checked={props.checked}
        onChange={(event) =>
          void settle(() => bridge.saveSettings({ startAtLogin: event.currentTarget.checked }))
        }
      />
      <span>Start the agent when this PC starts</span>
    </label>
  );
}
