/**
 * Which organization the dashboard acts for: the SDK's organization (the Gatehouse-Organization
 * header), remembered in localStorage with the user it was chosen by, so a reload (or the next
 * login) comes back to it, and another person signing in on this browser starts in their own.
 * Each tab acts for its own choice until it reloads.
 */
import { isGatehouseError } from '@gatehouse/sdk';
import { gatehouse, type Me } from './api.ts';

export const ORGANIZATION_STORAGE_KEY = 'gatehouse.dashboard.organization';

interface Choice {
  user: string;
  organization: string;
}

function readChoice(): Choice | null {
  try {
    const value = JSON.parse(window.localStorage.getItem(ORGANIZATION_STORAGE_KEY) ?? 'null') as Partial<Choice> | null;
    return typeof value?.user === 'string' && typeof value.organization === 'string' && /^org_[A-Za-z0-9]+$/.test(value.organization) ? (value as Choice) : null;
  } catch {
    return null;
  }
}

/** Acts for `organizationId` from the next call on, and remembers it for `userId`. */
export function chooseOrganization(userId: string, organizationId: string): void {
  gatehouse.setOrganization(organizationId);
  window.localStorage.setItem(ORGANIZATION_STORAGE_KEY, JSON.stringify({ user: userId, organization: organizationId }));
}

/** Back to the personal organization (after leaving or deleting the current one, or at sign-out). */
export function forgetOrganization(): void {
  gatehouse.setOrganization(null);
  window.localStorage.removeItem(ORGANIZATION_STORAGE_KEY);
}

/** At start and after a login: act for the remembered organization (checked by loadMe). */
export function applyRememberedOrganization(): void {
  gatehouse.setOrganization(readChoice()?.organization ?? null);
}

/**
 * GET /users/me for the organization acted for, falling back to the personal one when the choice
 * was another user's, or the user is no longer a member (403 not_a_member).
 */
export async function loadMe(): Promise<Me> {
  const chosen = gatehouse.getOrganization();
  if (chosen === null) return gatehouse.me.get();
  try {
    const me = await gatehouse.me.get();
    const remembered = readChoice();
    if (!remembered || remembered.user === me.id) return me;
  } catch (error) {
    if (!isGatehouseError(error, 'not_a_member')) throw error;
  }
  forgetOrganization();
  return gatehouse.me.get();
}
