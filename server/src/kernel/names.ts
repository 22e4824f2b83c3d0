import { fieldError } from './errors.js';

/** The longest name of an account, agent or API key, in characters. */
export const NAME_MAX = 100;

/** Trimmed, 1–100 characters; control characters are refused by the schema pattern. */
export function cleanName(name: string, field = '/name'): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw fieldError(field, 'too_short', 'name must not be empty.');
  if ([...trimmed].length > NAME_MAX) throw fieldError(field, 'too_long', `name must be at most ${NAME_MAX} characters.`);
  return trimmed;
}
