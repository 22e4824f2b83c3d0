import { escapeHtml } from '../../kernel/html.js';

/**
 * The few pages the engine itself shows a person: the device grant's code entry, its
 * confirmation and its end. Plain HTML under a CSP that allows no script and posts forms only to
 * this origin; the engine supplies each form (with its anti-forgery field).
 */
export const OAUTH_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function oauthPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:4rem auto;padding:0 1rem;color:#1c2430}input{font:inherit;font-size:1.4em;letter-spacing:.1em;text-transform:uppercase;padding:.4em;width:100%;box-sizing:border-box}button{font:inherit;padding:.5em 1.2em;margin:.8em .5em 0 0}code{font-size:1.6em;letter-spacing:.1em}.error{color:#b00020}</style></head><body>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

/** The device grant's pages, as oidc-provider's `features.deviceFlow` sources. */
export const devicePages = {
  input(form: string, error: { name?: string; userCode?: string } | undefined): { title: string; body: string } {
    const message = error === undefined ? '<p>Enter the code your device shows.</p>'
      : error.name === 'AbortedError' ? '<p class="error">The sign-in on the device was cancelled.</p>'
        : error.userCode !== undefined || error.name === 'NoCodeError' ? '<p class="error">That code is not right, or it has expired. Try again.</p>'
          : '<p class="error">Something went wrong; start again from the device.</p>';
    return { title: 'Connect a device', body: `${message}${form}<button type="submit" form="op.deviceInputForm">Continue</button>` };
  },
  confirm(form: string, appName: string, userCode: string): { title: string; body: string } {
    return {
      title: 'Is this your device?',
      body: `<p><strong>${escapeHtml(appName)}</strong> asks to connect. It should show this code:</p><p><code>${escapeHtml(userCode)}</code></p>
<p>If it does not, or you did not start this, cancel.</p>${form}
<button type="submit" form="op.deviceConfirmForm">Continue</button><button type="submit" form="op.deviceConfirmForm" value="yes" name="abort">Cancel</button>`,
    };
  },
  success(appName: string): { title: string; body: string } {
    return { title: 'Device connected', body: `<p>${escapeHtml(appName)} can now act for you. You can close this window and go back to the device.</p>` };
  },
};
