import { ErrorAlert } from '../components/ErrorAlert.tsx';
import { gatehouse } from '../lib/api.ts';
import { useAction, useResource } from '../lib/hooks.ts';
import { goToProvider } from '../lib/provider-sign-in.ts';

/** "Continue with …" for every provider the server has (none configured: nothing is shown). */
export function ProviderButtons({ next }: { next: string }) {
  const providers = useResource(() => gatehouse.auth.providers());
  const go = useAction((provider: { id: string; name: string }) => goToProvider(provider, 'sign-in', next));
  // Only those with a browser flow: a provider configured for native apps alone has no button here.
  const list = (providers.data?.data ?? []).filter((provider) => provider.web);
  if (list.length === 0) return null;
  return (
    <section class="providers" aria-label="Sign in with another account">
      <ErrorAlert error={go.error} />
      <p class="actions">
        {list.map((provider) => (
          <button key={provider.id} type="button" class="button button-secondary" onClick={() => void go.run(provider)} aria-disabled={go.busy ? 'true' : undefined}>
            Continue with {provider.name}
          </button>
        ))}
      </p>
    </section>
  );
}
