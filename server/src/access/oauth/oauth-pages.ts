import { escapeHtml } from '../../kernel/html.js';

/**
 * The few pages the engine itself shows a person: the device grant's code entry, its
 * confirmation and its end, in the dashboard's look. Plain HTML under a CSP that allows no script
 * and posts forms only to this origin. The engine hands over its own form; only its target and
 * anti-forgery token are taken from it, into a form with a labelled field.
 */
export const OAUTH_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const STYLE = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c2430;background:#f4f6f9}
header{background:#1f4e79;color:#fff;padding:.9rem 1rem;font-weight:700;font-size:1.25rem}
main{max-width:32rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.6rem;margin:0 0 1rem}
.card{background:#fff;border:1px solid #d5dbe3;border-radius:8px;padding:1.25rem}
label{display:block;font-weight:600;margin-bottom:.35rem}
input[type=text]{font:inherit;font-size:1.4rem;letter-spacing:.12em;text-transform:uppercase;padding:.5rem .6rem;width:100%;border:1px solid #8a96a6;border-radius:6px}
.hint{color:#4a5565;font-size:.95rem}.code{font:700 1.6rem ui-monospace,monospace;letter-spacing:.12em}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin-top:1rem}
button{font:inherit;font-weight:600;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #1f4e79;background:#1f4e79;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f4e79}.error{color:#a1001b;font-weight:600}
@media (prefers-color-scheme:dark){body{background:#11161d;color:#e6ebf1}.card{background:#1a212b;border-color:#344152}.hint{color:#b4bfcc}
input[type=text]{background:#11161d;color:#e6ebf1;border-color:#6d7b8d}button.secondary{background:#1a212b;color:#cfe3f7;border-color:#cfe3f7}.error{color:#ff9aa8}}`;

export function oauthPage(title: string, body: string, product: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · ${escapeHtml(product)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head><body>
<header>${escapeHtml(product)}</header>
<main><h1>${escapeHtml(title)}</h1><div class="card">${body}</div></main>
</body></html>`;
}

/** The target and anti-forgery token of a form the engine made (attribute values it escaped itself). */
function engineForm(form: string): { action: string; xsrf: string } {
  const action = /\baction="([^"]*)"/.exec(form)?.[1] ?? '';
  const xsrf = /name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '';
  return { action, xsrf };
}

/** The device grant's pages, as oidc-provider's `features.deviceFlow` sources. */
export const devicePages = {
  input(form: string, error: { name?: string; userCode?: string } | undefined): { title: string; body: string } {
    const { action, xsrf } = engineForm(form);
    const message = error === undefined ? ''
      : error.name === 'AbortedError' ? '<p class="error" role="alert">The sign-in on the device was cancelled.</p>'
        : error.userCode !== undefined || error.name === 'NoCodeError' ? '<p class="error" role="alert">That code is not right, or it has expired. Try again.</p>'
          : '<p class="error" role="alert">Something went wrong; start again from the device.</p>';
    return {
      title: 'Connect a device',
      body: `${message}<form method="post" action="${action}"><input type="hidden" name="xsrf" value="${xsrf}">
<label for="user_code">The code your device shows</label>
<input id="user_code" type="text" name="user_code" autocomplete="off" autocapitalize="characters" spellcheck="false" required aria-describedby="user_code_hint" autofocus>
<p class="hint" id="user_code_hint">Eight letters, like BCDF-GHJK. You will see which app asks before anything is allowed.</p>
<div class="actions"><button type="submit">Continue</button></div></form>`,
    };
  },
  confirm(form: string, appName: string, userCode: string): { title: string; body: string } {
    const { action, xsrf } = engineForm(form);
    return {
      title: 'Is this your device?',
      body: `<p><strong>${escapeHtml(appName)}</strong> asks to connect. Your device should show this code:</p><p class="code">${escapeHtml(userCode)}</p>
<p>If it does not, or you did not start this, cancel.</p>
<form method="post" action="${action}"><input type="hidden" name="xsrf" value="${xsrf}"><input type="hidden" name="user_code" value="${escapeHtml(userCode)}"><input type="hidden" name="confirm" value="yes">
<div class="actions"><button type="submit">Continue</button><button type="submit" class="secondary" name="abort" value="yes">Cancel</button></div></form>`,
    };
  },
  success(appName: string): { title: string; body: string } {
    return { title: 'Device connected', body: `<p>${escapeHtml(appName)} can now act for you. You can close this window and go back to the device.</p>` };
  },
};
