import { describe, expect, it } from 'vitest';
import { EXCERPT_BYTES, responseExcerpt } from './response-excerpt.js';

describe('response excerpt', () => {
  it('is null without an answer, empty for an empty body', () => {
    expect(responseExcerpt(null, false)).toBeNull();
    expect(responseExcerpt(Buffer.alloc(0), false)).toBe('');
  });

  it('keeps at most EXCERPT_BYTES, never half a character, and marks a cut', () => {
    expect(responseExcerpt(Buffer.from('x'.repeat(EXCERPT_BYTES)), false)).toBe('x'.repeat(EXCERPT_BYTES));
    expect(responseExcerpt(Buffer.from('x'.repeat(EXCERPT_BYTES + 50)), false)).toBe(`${'x'.repeat(EXCERPT_BYTES)}…`);
    const euros = Buffer.from('€'.repeat(100)); // three bytes each: byte 200 ends inside the 67th
    expect(responseExcerpt(euros.subarray(0, EXCERPT_BYTES), true)).toBe(`${'€'.repeat(66)}…`);
    expect(responseExcerpt(Buffer.from('ok'), true)).toBe('ok…');
  });

  it('replaces control characters and bidirectional overrides; invalid UTF-8 reads as U+FFFD', () => {
    expect(responseExcerpt(Buffer.from('a\tb\r\nc\u0000d\u001be\u007f\u0085\u202eg\u2066h'), false)).toBe('a b  c\uFFFDd\uFFFDe\uFFFD\uFFFD\uFFFDg\uFFFDh');
    expect(responseExcerpt(Buffer.from([0x6f, 0x6b, 0xff, 0x21]), false)).toBe('ok\uFFFD!');
    expect(responseExcerpt(Buffer.from([0x6f, 0x6b, 0xe2, 0x82]), false)).toBe('ok\uFFFD'); // the body ended mid-character
    expect(responseExcerpt(Buffer.from('{"error":"bad signature"} 👍'), false)).toBe('{"error":"bad signature"} 👍');
  });
});
