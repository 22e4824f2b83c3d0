import { describe, expect, it } from 'vitest';
import { SECURITY_EVENT_TYPES } from '../../server/src/identity/security-log/security-log.ts';
import { isWorthALook, SECURITY_EVENT_NAMES, securityEventDetails, securityEventName } from '../src/lib/security-events.ts';

describe('security log in words', () => {
  it('names every type of event the server records, and nothing it does not', () => {
    expect(SECURITY_EVENT_TYPES.filter((t) => !SECURITY_EVENT_NAMES[t])).toEqual([]);
    expect(Object.keys(SECURITY_EVENT_NAMES).filter((t) => !(SECURITY_EVENT_TYPES as readonly string[]).includes(t))).toEqual([]);
  });

  it('spells out a type it has no name for yet, and flags the events worth a second look', () => {
    expect(securityEventName('sign_in_failed')).toBe('Failed sign-in');
    expect(securityEventName('quantum_key_added')).toBe('Quantum key added');
    expect(isWorthALook('sign_in_failed')).toBe(true);
    expect(isWorthALook('sign_in')).toBe(false);
  });

  it('reads details as labelled values', () => {
    expect(securityEventDetails({ api_key_id: 'key_1', grace_seconds: 3600, scopes: ['agents:read', 'chats:read'], method: 'passkey' })).toEqual([
      ['Key', 'key_1'],
      ['Old secret kept for', '1 h'],
      ['Scopes', 'agents:read, chats:read'],
      ['Method', 'passkey'],
    ]);
    expect(securityEventDetails({})).toEqual([]);
    // An admin's change, as the server records it (the body the admin sent).
    expect(securityEventDetails({ admin_id: 'usr_1', changes: { tier: 'enterprise', limits: { per_minute: 5000, per_day: 200000 }, disabled: true } })).toEqual([
      ['By admin', 'usr_1'],
      ['Changes', 'tier: enterprise; limits: 5000 per minute, 200000 per day; disabled'],
    ]);
    expect(securityEventDetails({ by: 'operator', changes: { limits: null, disabled: false } })).toEqual([['By', 'operator'], ['Changes', 'limits: the tier’s own; enabled']]);
  });
});
