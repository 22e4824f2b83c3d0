import type { Schemas } from '@gatehouse/sdk';
import { useCallback } from 'react';
import { useGatehouse, useOrganizationContext } from './provider.js';
import { useList, type ListState } from './use-list.js';
import { useSession } from './use-session.js';

export type Organization = Schemas['Organization'];

export interface UseOrganization extends ListState<Organization> {
  /** The organization the hooks act for (org_…); null: the account's personal one. */
  current: string | null;
  /**
   * Act for another organization (null: the personal one): every call of the client sends it as
   * Gatehouse-Organization, and the lists of useAgents, useChats and useMessages load again.
   */
  switchTo(id: string | null): void;
  /** A new organization with the signed-in user as its owner; switches to it. */
  create(name: string): Promise<Organization>;
  /** Joins with a mailed invitation's token (the signed-in address must be the invited one); switches to it. */
  accept(token: string): Promise<Organization>;
}

/** The organizations the signed-in user belongs to (with their role in each), and which one the app acts for. */
export function useOrganization({ pageSize = 50 }: { pageSize?: number } = {}): UseOrganization {
  const gh = useGatehouse();
  const { status } = useSession();
  const { organization, switchTo } = useOrganizationContext();
  const list = useList((cursor) => gh.organizations.list({ limit: pageSize, ...(cursor ? { cursor } : {}) }), [gh, pageSize], status);
  const { setItems } = list;
  const joined = useCallback((org: Organization) => {
    setItems((items) => [org, ...items.filter((o) => o.id !== org.id)]);
    switchTo(org.id);
    return org;
  }, [setItems, switchTo]);
  const create = useCallback(async (name: string) => joined(await gh.organizations.create({ name })), [gh, joined]);
  const accept = useCallback(async (token: string) => joined(await gh.invitations.accept(token)), [gh, joined]);
  return { items: list.items, loading: list.loading, loadingMore: list.loadingMore, error: list.error, hasMore: list.hasMore, loadMore: list.loadMore, refresh: list.refresh, current: organization, switchTo, create, accept };
}
