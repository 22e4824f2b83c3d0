import { ActionForm } from '../components/ActionForm.tsx';
import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { Icon } from '../components/Icon.tsx';
import { Link } from '../components/Link.tsx';
import { Notice } from '../components/Notice.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { SubmitButton } from '../components/SubmitButton.tsx';
import { UsageChart } from '../components/UsageChart.tsx';
import { UsageMeter } from '../components/UsageMeter.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction, useResource } from '../lib/hooks.ts';
import { useSession } from '../lib/session.tsx';
import { useState } from 'preact/hooks';

const TIER_NAMES: Record<string, string> = { free: 'Free', hobby: 'Hobby', standard: 'Standard', pro: 'Pro', enterprise: 'Enterprise' };

function VerifyReminder() {
  const [sent, setSent] = useState(false);
  const { run, busy, error } = useAction(async () => {
    await gatehouse.me.resendVerification();
    setSent(true);
  });
  if (sent) return <Notice>A new confirmation link is on its way to your inbox.</Notice>;
  return (
    <div class="alert alert-warning">
      <p class="alert-title">Your email address is not confirmed yet.</p>
      <p>Open the link we emailed you. No email? We can send a new one.</p>
      <ErrorAlert error={error} />
      <ActionForm onSubmit={() => run()}>
        <SubmitButton busy={busy} busyLabel="Sending…">
          Send a new link
        </SubmitButton>
      </ActionForm>
    </div>
  );
}

export function OverviewPage() {
  const { me } = useSession();
  const usage = useResource(() => gatehouse.usage.get());
  if (!me) return null;
  const u = usage.data;
  return (
    <>
      <PageHeading title="Overview">Signed in as {me.name} ({me.email}).</PageHeading>
      {!me.email_verified && <VerifyReminder />}
      <section class="card" aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        <dl class="facts">
          <div>
            <dt>Tier</dt>
            <dd class="tier">{TIER_NAMES[me.tier] ?? me.tier}</dd>
          </div>
          <div>
            <dt>Per minute</dt>
            <dd>{me.limits.per_minute.toLocaleString()} requests</dd>
          </div>
          <div>
            <dt>Per day (UTC)</dt>
            <dd>{me.limits.per_day.toLocaleString()} requests</dd>
          </div>
        </dl>
      </section>
      <section class="card" aria-labelledby="usage-title" aria-busy={usage.loading ? 'true' : undefined}>
        <div class="card-head">
          <h2 id="usage-title">Usage today</h2>
          <button type="button" class="button button-secondary button-small" onClick={() => void usage.reload()}>
            <Icon name="refresh" />
            Refresh
          </button>
        </div>
        <p class="hint">Every request with your credentials counts, from this dashboard, your programs and your API keys alike.</p>
        <ErrorAlert error={usage.error} />
        {u ? (
          <div class="usage-grid">
            <UsageMeter label="Today" used={u.day.used} limit={u.limits.per_day} resetSeconds={u.day.reset_seconds} resetLabel="Starts again at midnight UTC, in" />
            <UsageMeter label="This minute" used={u.minute.used} limit={u.limits.per_minute} resetSeconds={u.minute.reset_seconds} resetLabel="Fully replenished in" />
          </div>
        ) : (
          !usage.error && <p role="status">Loading…</p>
        )}
      </section>
      <section class="card" aria-labelledby="history-title">
        <h2 id="history-title">Requests over time</h2>
        <p class="hint">All requests with your credentials by outcome (admitted, over a limit, refused credentials, missing permissions), including those the limits above do not count.</p>
        <UsageChart subject="with your account" />
      </section>
      <section class="card" aria-labelledby="next-title">
        <h2 id="next-title">Next steps</h2>
        <ul class="links">
          <li>
            <Link href="/settings/api-keys">Create an API key</Link> for your programs.
          </li>
          <li>
            <Link href="/agents">Create an agent</Link>, then <Link href="/webhooks">add a webhook</Link> so its runtime hears new messages.
          </li>
          <li>
            <a href="/docs">Read the API reference</a>.
          </li>
        </ul>
      </section>
    </>
  );
}
