import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, can, type Session, whenSignedOut } from './api.ts';
import { AttentionBanner } from './attention-banner.tsx';
import { closeLive } from './live.ts';
import { AccountPage } from './pages/account.tsx';
import { AgentsPage } from './pages/agents.tsx';
import { JobPage } from './pages/job.tsx';
import { JobsPage } from './pages/jobs.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { SetPasswordPage, SignInPage } from './pages/sign-in.tsx';
import { TemplatesPage } from './pages/templates.tsx';
import { TokensPage } from './pages/tokens.tsx';
import { UsersPage } from './pages/users.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { navigate, onLinkClick, usePath } from './router.ts';

interface NavItem {
  href: string;
  label: string;
  /** What the session must hold to see it. */
  needs: string;
}

const navItems: NavItem[] = [
  { href: '/console/', label: 'Overview', needs: 'printing.jobs.read' },
  { href: '/console/jobs', label: 'Jobs', needs: 'printing.jobs.read' },
  { href: '/console/agents', label: 'Agents', needs: 'printing.jobs.read' },
  { href: '/console/templates', label: 'Templates', needs: 'printing.templates.read' },
  { href: '/console/tokens', label: 'Tokens', needs: 'tokens.manage' },
  { href: '/console/webhooks', label: 'Webhooks', needs: 'webhooks.manage' },
  { href: '/console/users', label: 'Users', needs: 'users.manage' },
];

function section(path: string): string {
  return path.replace(/^\/console\/?/, '').split(/[/?]/)[0] ?? '';
}

function View({
  session,
  path,
  onSignedOut,
}: {
  session: Session;
  path: string;
  onSignedOut: () => void;
}) {
  const [, view, id] = path
    .split('?')[0]!
    .replace(/^\/console/, '')
    .split('/');
  const allowed = navItems.find((item) => section(item.href) === (view ?? ''));
  if (allowed && !can(session, allowed.needs)) return <p>You do not have access to this page.</p>;
  switch (view ?? '') {
    case '':
      return <OverviewPage />;
    case 'jobs':
      return id ? <JobPage id={Number(id)} session={session} /> : <JobsPage session={session} />;
    case 'agents':
      return <AgentsPage session={session} />;
    case 'templates':
      return <TemplatesPage session={session} id={id ? Number(id) : undefined} />;
    case 'tokens':
      return <TokensPage session={session} />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'users':
      return <UsersPage session={session} />;
    case 'account':
      return <AccountPage session={session} onSignedOut={onSignedOut} />;
    default:
      return <p>There is no such page.</p>;
  }
}

/**
 * Who was signed in, as this tab last heard (roles and permissions, no secret): the page
 * renders from it at once while the server is asked again, which saves a round trip before
 * the first useful paint; the server's answer replaces it, and refuses what it no longer allows.
 */
const remembered = 'shopdesk-session';

function remember(session: Session | null): Session | null {
  if (session) sessionStorage.setItem(remembered, JSON.stringify(session));
  else sessionStorage.removeItem(remembered);
  return session;
}

function App() {
  const path = usePath();
  const [session, setSession] = useState<Session | null | undefined>(() => {
    const kept = sessionStorage.getItem(remembered);
    return kept ? (JSON.parse(kept) as Session) : undefined;
  });
  useEffect(() => {
    whenSignedOut(() => {
      closeLive();
      setSession(remember(null));
    });
    api<{ data: Session }>('GET', '/console/session').then(
      (answer) => setSession(remember(answer.data)),
      () => setSession(remember(null)),
    );
  }, []);
  if (path.startsWith('/console/set-password')) return <SetPasswordPage />;
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null) return <SignInPage onSignedIn={(made) => setSession(remember(made))} />;
  const signOut = async () => {
    await api('DELETE', '/console/session').catch(() => {});
    closeLive();
    setSession(remember(null));
    navigate('/console/');
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <TopBar session={session} current={section(path)} onSignOut={signOut} />
      <main id="main" tabIndex={-1}>
        <AttentionBanner />
        <View
          session={session}
          path={path}
          onSignedOut={() => {
            closeLive();
            setSession(remember(null));
          }}
        />
      </main>
    </>
  );
}

/**
 * The bar above every page: the company, the pages this person may see, who is signed in.
 * Under 600 px the pages fold behind a "Menu" button (styles.css), so the bar is one row.
 */
function TopBar(props: { session: Session; current: string; onSignOut: () => void }) {
  const { session, current } = props;
  const [open, setOpen] = useState(false);
  // Back and forward change the page without a click: the menu closes then too.
  useEffect(() => setOpen(false), [current]);
  const follow = (event: MouseEvent) => {
    setOpen(false);
    onLinkClick(event);
  };
  return (
    <header class="top">
      <span class="brand">
        <span class="brand-mark" aria-hidden="true" />
        ShopDesk <span class="company">· {session.company.name}</span>
      </span>
      <button
        type="button"
        class="menu-toggle secondary"
        aria-expanded={open}
        aria-controls="console-nav"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <nav aria-label="Console" id="console-nav" class={open ? 'open' : undefined}>
        <ul>
          {navItems
            .filter((item) => can(session, item.needs))
            .map((item) => (
              <li key={item.href}>
                <a
                  href={item.href}
                  onClick={follow}
                  aria-current={section(item.href) === current ? 'page' : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          {/* On a phone the bar has room for Menu and Sign out only: Account is in the menu. */}
          <li class="phone-only">
            <a
              href="/console/account"
              onClick={follow}
              aria-current={current === 'account' ? 'page' : undefined}
            >
              Account
            </a>
          </li>
        </ul>
      </nav>
      <span class="who">
        <span class="who-name">
          {session.user.email} ({session.user.role})
        </span>{' '}
        <a
          class="who-account"
          href="/console/account"
          onClick={onLinkClick}
          aria-current={current === 'account' ? 'page' : undefined}
        >
          Account
        </a>{' '}
        <button type="button" class="secondary" onClick={props.onSignOut}>
          Sign out
        </button>
      </span>
    </header>
  );
}

render(<App />, document.getElementById('app')!);
