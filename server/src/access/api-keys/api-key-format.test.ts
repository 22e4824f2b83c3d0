import { describe, expect, it } from 'vitest';
import { API_KEY_LENGTH, generateApiKey, isWellFormedApiKey } from './api-key-format.js';

describe('API key format', () => {
  it('is gth_ + 34 base62 + 6 base62 checksum, 44 chars', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^gth_[0-9A-Za-z]{40}$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('rejects any single-character change, truncation or wrong prefix', () => {
    const key = generateApiKey();
    for (let i = 4; i < key.length; i++) {
      const swapped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
      expect(isWellFormedApiKey(swapped)).toBe(false);
    }
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey('ghp_' + key.slice(4))).toBe(false);
    expect(isWellFormedApiKey(key + 'x')).toBe(false);
  });

  it('is random: no repeats and every base62 character used', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const chars = new Set(keys.flatMap((k) => [...k.slice(4, 38)]));
    expect(chars.size).toBe(62);
  });
});
