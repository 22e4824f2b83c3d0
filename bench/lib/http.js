// The few HTTP calls the setup makes (register, log in, create things, check answers), with
// errors that show what the server said.

/** `token` goes in `Authorization: Bearer`; `headers` are added as given. */
export async function call(base, method, path, { token, body, headers: extra = {} } = {}) {
  const headers = { ...extra };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON; kept as text in the error below
  }
  return { status: res.status, headers: res.headers, json, text };
}

export async function expectStatus(base, method, path, status, options) {
  const res = await call(base, method, path, options);
  if (res.status !== status) throw new Error(`setup: ${method} ${path} answered ${res.status}, expected ${status}: ${res.text.slice(0, 500)}`);
  return res;
}
