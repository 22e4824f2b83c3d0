import { StringDecoder } from 'node:string_decoder';

/** How much of a receiver's answer an attempt keeps: enough to read an error message. */
export const EXCERPT_BYTES = 200;

/**
 * Line breaks and tabs read as spaces; other control characters, and the bidirectional overrides
 * that could make an excerpt display as something else in a dashboard, become U+FFFD.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const SPACES = /[\t\n\r]/g;

/**
 * The stored, displayable form of the first bytes of an answer: decoded as UTF-8 (invalid bytes
 * become U+FFFD), a character cut in two at the end dropped rather than mangled, control
 * characters replaced, and `…` when the body went on. Null when there was no answer at all.
 */
export function responseExcerpt(bytes: Buffer | null, cut: boolean): string | null {
  if (bytes === null) return null;
  // StringDecoder holds back an incomplete trailing sequence instead of emitting U+FFFD for it.
  const decoder = new StringDecoder('utf8');
  const complete = decoder.write(bytes.subarray(0, EXCERPT_BYTES));
  const tail = decoder.end();
  const text = complete.replace(SPACES, ' ').replace(CONTROL, '\uFFFD');
  if (cut || bytes.length > EXCERPT_BYTES) return `${text}…`;
  return tail.length > 0 ? `${text}\uFFFD` : text; // the body itself ended mid-character
}
