/**
 * Hands text the page holds to the browser as a file: a Blob behind an `<a download>` clicked
 * from script. Saving it is a navigation to a `blob:` URL of this origin, which the CSP's
 * `connect-src`/`default-src` do not govern (only fetches and subresources are), so nothing in the
 * policy has to change.
 */

/** `<a download>` clicked from script: the browser saves `url` as `filename`. */
export function offerDownload(url: string, filename: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}

/** Saves `text` as `filename`; the Blob's URL is released once the browser has taken it. */
export function downloadText(text: string, filename: string, type = 'text/plain'): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  offerDownload(url, filename);
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
