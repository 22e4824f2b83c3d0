import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from './request-fingerprint.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(null)).toBe('null');
  });

  it('tells different bodies apart, and the same body in any key order not', () => {
    const a = requestFingerprint('POST', '/v1/agents', JSON.parse('{"name":"n","model":"m","metadata":{"x":"1","y":"2"}}'));
    const b = requestFingerprint('POST', '/v1/agents', JSON.parse('{ "metadata": {"y":"2", "x":"1"}, "model": "m", "name": "n" }'));
    expect(a).toBe(b);
    expect(requestFingerprint('POST', '/v1/agents', { name: 'n', model: 'other' })).not.toBe(a);
    expect(requestFingerprint('POST', '/v1/chats', JSON.parse('{"name":"n","model":"m","metadata":{"x":"1","y":"2"}}'))).not.toBe(a);
  });
});
