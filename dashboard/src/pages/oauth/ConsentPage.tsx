import { useEffect, useState } from 'preact/hooks';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { PageHeading } from '../../components/PageHeading.tsx';
import { SelectField } from '../../components/SelectField.tsx';
import { gatehouse, ROLE_HINTS, scopeInWords, type OauthInteraction } from '../../lib/api.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { useOrganizations } from '../../lib/organizations.tsx';
import { useSession } from '../../lib/session.tsx';

/** Where the app sends the person back, as they can judge it: the host of a web address, the whole of an app's own scheme. */
function describeDestination(uri: string): string {
  try {
    const url = new URL(uri);
    if (url.protocol === 'https:') return url.host;
    if (url.protocol === 'http:') return `an app on this device (${url.host})`;
    return `the app ${url.protocol.slice(0, -1)} on this device`;
  } catch {
    return uri;
  }
}

/**
 * `/oauth/consent?interaction=<uid>`: an app asks a person to act for them. The server sends the
 * browser here from the authorization (or a device's code); signed out, the router sends the
 * person through the login page first (with every way in, second factor included) and back.
 * The page names the app and who registered it, where it sends the person back, each scope in
 * words and the organization it will act for; Allow or Deny leaves for the app.
 */
export function ConsentPage({ query }: { query: URLSearchParams }) {
  const uid = query.get('interaction') ?? '';
  const details = useResource(() => gatehouse.oauth.interaction(uid), [uid]);
  return (
    <>
      <PageHeading title="Allow access" />
      {!uid ? (
        <ErrorAlert error={{ message: 'This page needs an authorization to answer. Start again from the app.', fields: {}, requestId: null, code: null }} />
      ) : details.error ? (
        <ErrorAlert error={details.error} />
      ) : details.data ? (
        details.data.remembered_organization_id ? <Continuing uid={uid} details={details.data} /> : <ConsentForm uid={uid} details={details.data} />
      ) : (
        <p role="status" class="loading">Loading…</p>
      )}
    </>
  );
}

/**
 * The person allowed as much before (same app, resource and scopes): no question, on at once.
 * Should that fail (the grant ended meanwhile), the consent form asks after all.
 */
function Continuing({ uid, details }: { uid: string; details: OauthInteraction }) {
  const go = useAction(async () => window.location.assign((await gatehouse.oauth.continue(uid)).redirect_to));
  useEffect(() => {
    void go.run();
  }, []);
  if (go.error) return <ConsentForm uid={uid} details={{ ...details, remembered_organization_id: null }} />;
  return (
    <p role="status" class="loading">
      You allowed {details.client.name} before: going back to it…
    </p>
  );
}

function ConsentForm({ uid, details }: { uid: string; details: OauthInteraction }) {
  const { me } = useSession();
  const { organizations, current } = useOrganizations();
  const [organizationId, setOrganizationId] = useState('');
  useEffect(() => {
    if (!organizationId && current) setOrganizationId(current.id);
  }, [current, organizationId]);
  const chosen = organizations?.find((o) => o.id === organizationId) ?? current;
  const leave = (to: string) => window.location.assign(to);
  const allow = useAction(async () => leave((await gatehouse.oauth.decide(uid, { decision: 'allow', organization_id: organizationId || undefined })).redirect_to));
  const deny = useAction(async () => leave((await gatehouse.oauth.decide(uid, { decision: 'deny' })).redirect_to));
  const busy = allow.busy || deny.busy;
  const owner = details.client.registered_by;
  // A client_id that is the URL of the app's metadata document: the site that describes it.
  const publishedAt = /^https?:\/\//.test(details.client.id) ? new URL(details.client.id).host : null;
  const forMcp = details.resource.endsWith('/v1/mcp');
  return (
    <section class="card consent" aria-labelledby="consent-title">
      <h2 id="consent-title">
        <strong>{details.client.name}</strong> wants to act for you
      </h2>
      <p class="hint">
        {owner ? (
          <>Registered by the organization {owner.organization_name}.</>
        ) : publishedAt ? (
          <>Described by its own page at {publishedAt}: no organization vouches for it. Allow it only if you started this from an app you trust.</>
        ) : (
          <>Registered by the app itself: no organization vouches for it. Allow it only if you started this from an app you trust.</>
        )}
      </p>
      <p>
        Signed in as <strong>{me?.email}</strong>. It will be able to:
      </p>
      <ul class="scope-list">
        {details.scopes.map((scope) => (
          <li key={scope}>
            {scopeInWords(scope)} <code>{scope}</code>
          </li>
        ))}
      </ul>
      <p class="hint">
        {forMcp ? 'Through the MCP server (for assistants and agents), ' : 'Through the API, '}
        {details.offline_access ? 'and it keeps access until you remove it in Settings → Connected apps.' : 'for as long as its access token lasts.'} It can never manage your
        account, password or keys.
      </p>
      {organizations && organizations.length > 1 ? (
        <SelectField
          label="Organization it acts for"
          name="organization"
          value={organizationId}
          options={organizations.map((o) => ({ value: o.id, label: `${o.personal ? 'Personal' : o.name} (${o.role})` }))}
          onValue={setOrganizationId}
          hint={chosen ? `As a ${chosen.role} there, you ${ROLE_HINTS[chosen.role]}: the app can do no more.` : undefined}
        />
      ) : (
        <p>It acts for your personal organization.</p>
      )}
      <p>
        Then you go back to <strong>{describeDestination(details.redirect_uri)}</strong>.
      </p>
      <ErrorAlert error={allow.error ?? deny.error} onStepUp={() => void allow.run()} />
      <div class="actions">
        <button type="button" class="button button-primary" aria-disabled={busy ? 'true' : undefined} onClick={() => void (busy || allow.run())}>
          {allow.busy ? 'Allowing…' : 'Allow'}
        </button>
        <button type="button" class="button button-secondary" aria-disabled={busy ? 'true' : undefined} onClick={() => void (busy || deny.run())}>
          {deny.busy ? 'Denying…' : 'Deny'}
        </button>
      </div>
    </section>
  );
}
