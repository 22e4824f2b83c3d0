/**
 * Reading a form's number boxes (a key's limits, a plan's custom limits): each box is empty or a
 * whole number from 1 to the server's bound; the server checks again.
 */

/**
 * A reader for several boxes and the messages of the wrong ones, keyed by the field name given:
 * `read` returns null for an empty box, the number for a good one, and null (noting the message
 * in `errors`) for anything else.
 */
export function numberBoxReader() {
  const errors: Record<string, string> = {};
  const read = (field: string, value: string, max: number): number | null => {
    const text = value.trim();
    if (text === '') return null;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < 1 || n > max) {
      errors[field] = `Enter a whole number from 1 to ${max.toLocaleString()}, or leave it empty.`;
      return null;
    }
    return n;
  };
  return { read, errors };
}
