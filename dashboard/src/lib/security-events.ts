/**
 * The security log's events in words: a name for each type, which ones deserve a second look,
 * and an event's details as label/value pairs. Types the server adds later still read (their
 * name spelled out from the type) until they get a name here; test/security-events.test.ts checks
 * every type the server has is named.
 */
import { formatDateTime } from './format.ts';

export const SECURITY_EVENT_NAMES: Record<string, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  sign_out: 'Signed out',
  session_revoked: 'Session revoked',
  sessions_revoked: 'Other sessions signed out',
  refresh_token_reused: 'Stolen session stopped',
  password_changed: 'Password changed',
  password_reset_requested: 'Password reset asked for',
  password_reset: 'Password reset',
  email_verified: 'Email address confirmed',
  email_change_requested: 'Email change asked for',
  email_changed: 'Email address changed',
  api_key_created: 'API key created',
  api_key_updated: 'API key changed',
  api_key_rolled: 'API key rolled',
  api_key_revoked: 'API key revoked',
  account_updated_by_admin: 'Account changed by an administrator',
  organization_updated_by_admin: 'Organization changed by an administrator',
  mfa_enabled: 'Two-step verification turned on',
  mfa_disabled: 'Two-step verification turned off',
  mfa_failed: 'Wrong second-factor code',
  step_up: 'Identity confirmed with the second factor',
  recovery_codes_regenerated: 'New recovery codes',
  recovery_code_used: 'Recovery code used',
  passkey_added: 'Passkey added',
  passkey_removed: 'Passkey removed',
  identity_linked: 'Sign-in provider linked',
  identity_unlinked: 'Sign-in provider unlinked',
  account_exported: 'Account data exported',
  account_deletion_scheduled: 'Account deletion scheduled',
  account_restored: 'Account restored',
  app_connected: 'App allowed to act for you',
  app_disconnected: 'App disconnected',
  sign_in_code_requested: 'Sign-in code mailed',
  guest_upgraded: 'Guest account given an address',
};

/** Events that may mean someone else is trying: shown with a warning badge. */
const WORTH_A_LOOK = new Set(['sign_in_failed', 'refresh_token_reused', 'mfa_failed', 'account_deletion_scheduled']);

export const securityEventName = (type: string): string => SECURITY_EVENT_NAMES[type] ?? spelledOut(type);
export const isWorthALook = (type: string): boolean => WORTH_A_LOOK.has(type);

function spelledOut(snake: string): string {
  const words = snake.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const DETAIL_LABELS: Record<string, string> = {
  api_key_id: 'Key',
  session_id: 'Session',
  passkey_id: 'Passkey',
  identity_id: 'Linked account',
  grace_seconds: 'Old secret kept for',
  api_keys_revoked: 'API keys revoked',
  sessions_revoked: 'Sessions signed out',
  deletion_due_at: 'Deleted on',
  mfa: 'Second factor',
  admin_id: 'By admin',
};

/** An admin's changes ({ tier, limits, disabled }, as sent) as "tier: standard; disabled". */
function changesText(changes: object): string {
  return Object.entries(changes)
    .map(([key, value]) => {
      if (key === 'disabled') return value ? 'disabled' : 'enabled';
      if (key === 'limits') return value === null || typeof value !== 'object' ? 'limits: the tier’s own' : `limits: ${Object.entries(value).map(([k, n]) => `${String(n)} ${k.replace(/_/g, ' ')}`).join(', ')}`;
      return `${key.replace(/_/g, ' ')}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`;
    })
    .join('; ');
}

function valueText(key: string, value: unknown): string {
  if (key === 'changes' && value !== null && typeof value === 'object' && !Array.isArray(value)) return changesText(value);
  if (key === 'grace_seconds' && typeof value === 'number') return value === 0 ? 'no time' : value % 3600 === 0 ? `${value / 3600} h` : `${Math.round(value / 60)} min`;
  if (key === 'deletion_due_at' && typeof value === 'string') return formatDateTime(value);
  if (Array.isArray(value)) return value.map(String).join(', ');
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An event's `detail` as label/value pairs, in the order the server wrote them. */
export function securityEventDetails(detail: Record<string, unknown>): [label: string, value: string][] {
  return Object.entries(detail).map(([key, value]) => [DETAIL_LABELS[key] ?? spelledOut(key), valueText(key, value)]);
}
