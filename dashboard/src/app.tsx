import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { AppShell, PublicShell } from './components/AppShell.tsx';
import { ErrorAlert } from './components/ErrorAlert.tsx';
import { safeNext } from './lib/next.ts';
import { navigate, useLocation, type Location } from './lib/router.ts';
import { OrganizationsProvider } from './lib/organizations.tsx';
import { SessionProvider, useSession } from './lib/session.tsx';
import { AdminArea } from './pages/admin/AdminArea.tsx';
import { AgentsPage } from './pages/AgentsPage.tsx';
import { ChatPage } from './pages/ChatPage.tsx';
import { ChatsPage } from './pages/ChatsPage.tsx';
import { ForgotPasswordPage } from './pages/ForgotPasswordPage.tsx';
import { AcceptInvitationPage } from './pages/AcceptInvitationPage.tsx';
import { LoginPage } from './pages/LoginPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { ConsentPage } from './pages/oauth/ConsentPage.tsx';
import { OverviewPage } from './pages/OverviewPage.tsx';
import { ResetPasswordPage } from './pages/ResetPasswordPage.tsx';
import { SettingsPage } from './pages/settings/SettingsPage.tsx';
import { SignupPage } from './pages/SignupPage.tsx';
import { SignInLinkPage } from './pages/SignInLinkPage.tsx';
import { VerifyEmailPage } from './pages/VerifyEmailPage.tsx';
import { ProviderCallbackPage } from './pages/ProviderCallbackPage.tsx';
import { WebhookPage } from './pages/webhooks/WebhookPage.tsx';
import { WebhooksPage } from './pages/webhooks/WebhooksPage.tsx';
import { accessOf } from './routes.ts';

/** `/<section>/<id>` → the id; null for any other path (or an id that is not valid percent-encoding). */
function idIn(section: 'chats' | 'webhooks', path: string): string | null {
  const raw = new RegExp(`^/${section}/([^/]+)$`).exec(path)?.[1];
  try {
    return raw ? decodeURIComponent(raw) : null;
  } catch {
    return null;
  }
}

function page({ path, query }: Location): JSX.Element {
  switch (path) {
    case '/': return <OverviewPage />;
    case '/login': return <LoginPage query={query} />;
    case '/signup': return <SignupPage />;
    case '/forgot-password': return <ForgotPasswordPage />;
    case '/reset-password': return <ResetPasswordPage query={query} />;
    case '/verify-email': return <VerifyEmailPage query={query} />;
    case '/sign-in': return <SignInLinkPage query={query} />;
    case '/oidc-callback': return <ProviderCallbackPage query={query} />;
    case '/accept-invitation': return <AcceptInvitationPage query={query} />;
    case '/agents': return <AgentsPage />;
    case '/chats': return <ChatsPage query={query} />;
    case '/webhooks': return <WebhooksPage />;
    case '/oauth/consent': return <ConsentPage query={query} />;
  }
  if (path.startsWith('/settings/')) return <SettingsPage path={path} />;
  if (path === '/admin' || path.startsWith('/admin/')) return <AdminArea path={path} query={query} />;
  const chatId = idIn('chats', path);
  if (chatId) return <ChatPage key={chatId} chatId={chatId} />;
  const webhookId = idIn('webhooks', path);
  if (webhookId) return <WebhookPage key={webhookId} id={webhookId} />;
  return <NotFoundPage />;
}

/** Where a route sends a visitor who may not see it, or null to show it. */
function redirectFor(location: Location, status: 'signed-in' | 'signed-out'): string | null {
  const access = accessOf(location.path);
  if (location.path === '/settings') return '/settings/profile';
  if (access === 'signed-in' && status === 'signed-out') {
    return location.path === '/' ? '/login' : `/login?next=${encodeURIComponent(location.path + (location.query.size ? `?${location.query}` : ''))}`;
  }
  // Just logged in (or already signed in): on to where the visitor was going.
  if (access === 'signed-out' && status === 'signed-in') return safeNext(location.query.get('next'));
  return null;
}

function Routes() {
  const location = useLocation();
  const { status, unavailable, retry } = useSession();
  const redirect = status === 'loading' ? null : redirectFor(location, status);
  useEffect(() => {
    if (redirect) navigate(redirect, { replace: true });
  }, [redirect]);

  if (status === 'loading' && unavailable) {
    return (
      <PublicShell>
        <ErrorAlert error={unavailable} />
        <button type="button" class="button" onClick={retry}>
          Try again
        </button>
      </PublicShell>
    );
  }
  if (status === 'loading' || redirect) {
    return (
      <PublicShell>
        <p role="status" class="loading">
          Loading…
        </p>
      </PublicShell>
    );
  }
  return status === 'signed-in' ? (
    <OrganizationsProvider>
      <AppShell path={location.path}>{page(location)}</AppShell>
    </OrganizationsProvider>
  ) : (
    <PublicShell>{page(location)}</PublicShell>
  );
}

export function App() {
  return (
    <SessionProvider>
      <Routes />
    </SessionProvider>
  );
}
