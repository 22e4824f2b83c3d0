const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const withSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

export function formatDateTime(iso: string | null | undefined, empty = 'never'): string {
  return iso ? dateTime.format(new Date(iso)) : empty;
}

/** To the second: for events that follow each other quickly (a delivery's attempts). */
export function formatDateTimeSeconds(iso: string): string {
  return withSeconds.format(new Date(iso));
}

export function formatDate(iso: string | null | undefined, empty = 'never'): string {
  return iso ? dateOnly.format(new Date(iso)) : empty;
}

/** A usage bucket's start: the hour in local time, or the UTC day the server counted. */
export function formatBucket(iso: string, granularity: 'hour' | 'day'): string {
  return granularity === 'day' ? utcDay.format(new Date(iso)) : dateTime.format(new Date(iso));
}

export function formatNumber(n: number): string {
  return n.toLocaleString();
}

/** "in 42 s", "in 3 min", "in 5 h 10 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** A short, readable summary of a browser's user agent string ("Chrome on Linux"). */
export function describeUserAgent(ua: string | null): string {
  if (!ua) return 'Unknown device';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : /curl\//.test(ua) ? 'curl' : null;
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? (ua.length > 60 ? `${ua.slice(0, 57)}…` : ua);
}
