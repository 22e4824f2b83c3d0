import { createContext, type ComponentChildren } from 'preact';
import { useContext, useMemo } from 'preact/hooks';
import { collect } from '@gatehouse/sdk';
import { gatehouse, type Organization } from './api.ts';
import type { ErrorView } from './errors.ts';
import { useResource } from './hooks.ts';
import { chooseOrganization, forgetOrganization } from './organization-choice.ts';
import { useSession } from './session.tsx';

interface OrganizationsApi {
  /** The user's organizations, the personal one first, then by name; null while loading. */
  organizations: Organization[] | null;
  error: ErrorView | null;
  /** The one acted for now (from GET /users/me), with the user's role in it. */
  current: Organization | null;
  reload(): Promise<void>;
  /** Acts for `id` from now on (remembered), and reloads the account: the page remounts with its data. */
  switchTo(id: string): Promise<void>;
  /** Back to the personal organization (after leaving or deleting the current one). */
  switchToPersonal(): Promise<void>;
}

const OrganizationsContext = createContext<OrganizationsApi | null>(null);

export function useOrganizations(): OrganizationsApi {
  const value = useContext(OrganizationsContext);
  if (!value) throw new Error('useOrganizations outside <OrganizationsProvider>');
  return value;
}

export const sortOrganizations = (list: Organization[]) =>
  [...list].sort((a, b) => Number(b.personal) - Number(a.personal) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));

/** The signed-in user's organizations for the switcher and the organization pages. */
export function OrganizationsProvider({ children }: { children: ComponentChildren }) {
  const { me, refreshMe } = useSession();
  const list = useResource(async () => sortOrganizations(await collect((cursor) => gatehouse.organizations.list({ cursor, limit: 100 }))), [me?.id]);
  const currentId = me?.organization.id;
  const api = useMemo<OrganizationsApi>(() => ({
    organizations: list.data,
    error: list.error,
    current: list.data?.find((o) => o.id === currentId) ?? null,
    reload: list.reload,
    async switchTo(id) {
      if (!me) return;
      chooseOrganization(me.id, id);
      await Promise.all([refreshMe(), list.reload()]);
    },
    async switchToPersonal() {
      forgetOrganization();
      await Promise.all([refreshMe(), list.reload()]);
    },
  }), [list.data, list.error, currentId, me]);
  return <OrganizationsContext.Provider value={api}>{children}</OrganizationsContext.Provider>;
}
