import { GatehouseError } from '@gatehouse/sdk';
import { describe, expect, it } from 'vitest';
import { describeError, endsSession } from '../src/lib/errors.ts';

describe('describeError', () => {
  it('says the wait of a 429 once, in human units', () => {
    const error = new GatehouseError({ code: 'rate_limited', status: 429, detail: "The account's day limit of 10000 requests is used up.", retryAfterSeconds: 76_271 });
    const { message } = describeError(error);
    expect(message).toBe("The account's day limit of 10000 requests is used up. Try again in 21 h 11 min.");
    expect(message.match(/again/g)).toHaveLength(1);
  });

  it('keeps a short wait in seconds', () => {
    const error = new GatehouseError({ code: 'too_many_attempts', status: 429, detail: 'Too many failed sign-in attempts; try again later.', retryAfterSeconds: 12 });
    expect(describeError(error).message).toBe('Too many failed sign-in attempts; try again later. Try again in 12 s.');
  });
});

describe('endsSession', () => {
  it('is true for a refused credential, false for a server or network hiccup', () => {
    expect(endsSession(new GatehouseError({ code: 'invalid_token', status: 401, detail: 'revoked' }))).toBe(true);
    expect(endsSession(new GatehouseError({ code: 'rate_limited', status: 429, detail: 'slow down', retryAfterSeconds: 60 }))).toBe(false);
    expect(endsSession(new GatehouseError({ code: 'service_unavailable', status: 503, detail: 'down' }))).toBe(false);
    expect(endsSession(new GatehouseError({ code: 'network_error', status: 0, detail: 'offline' }))).toBe(false);
  });
});
