import { isGatehouseError } from '@gatehouse/sdk';
import { formatDuration } from './format.ts';

/** What a form shows after a failed call: one sentence, messages per field, and the request id. */
export interface ErrorView {
  message: string;
  /** Field name (the problem's JSON pointer without the slash: "/email" → "email") → message. */
  fields: Record<string, string>;
  requestId: string | null;
  code: string | null;
}

/** Only the SDK's own client-side codes get our wording; server problems keep their `detail`. */
const FRIENDLIER: Record<string, string> = {
  not_authenticated: 'Your session has ended. Log in again.',
  network_error: 'The server could not be reached. Check your connection and try again.',
  timeout: 'The server took too long to answer. Try again.',
  invalid_response: 'The server gave an answer the dashboard could not read. Try again in a moment.',
};

function fieldName(pointer: string): string {
  return pointer.replace(/^\//, '').split('/')[0] ?? '';
}

/** Whether an error means the stored session is over (as opposed to a server or network hiccup). */
export function endsSession(error: unknown): boolean {
  return isGatehouseError(error) && (error.status === 401 || error.code === 'not_authenticated' || error.code === 'account_disabled');
}

/** Turns anything a call can throw into a view; the problem body's own `detail` is the message. */
export function describeError(error: unknown): ErrorView {
  if (isGatehouseError(error)) {
    const fields: Record<string, string> = {};
    for (const e of error.errors) {
      const name = fieldName(e.field);
      if (name && !fields[name]) fields[name] = e.message;
    }
    let message = FRIENDLIER[error.code] ?? error.detail;
    // The server's sentence never names the wait (it is in Retry-After): said here once, in human units.
    if (error.retryAfterSeconds !== null && (error.status === 429 || error.status === 503)) message += ` Try again in ${formatDuration(error.retryAfterSeconds)}.`;
    return { message, fields, requestId: error.requestId, code: error.code };
  }
  if (error instanceof TypeError) {
    return { message: 'The server could not be reached. Check your connection and try again.', fields: {}, requestId: null, code: null };
  }
  return { message: error instanceof Error ? error.message : 'Something went wrong.', fields: {}, requestId: null, code: null };
}
