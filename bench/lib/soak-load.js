// The soak's load: a steady, open-loop request rate (requests are sent on schedule whether or not
// earlier ones have been answered, so a slowing server shows up as latency and backlog, not as a
// quietly lower rate), a realistic mix, and logins at a low rate of their own.

/**
 * One cycle of 20 requests: reads with the access token and the API key, agent creates and
 * deletes at the same rate (the account's agents stay around the same number however long it
 * runs), and reads of single agents.
 */
const CYCLE = ['me', 'usage', 'list', 'get', 'me', 'usage', 'list', 'create', 'me', 'usage',
  'list', 'get', 'me', 'usage', 'list', 'delete', 'me', 'usage', 'get', 'list'];


/**
 * Starts the load on `base` for `account` ({ email, password, token, key } from prepareAccount).
 * `window()` returns what happened since the previous call (answers, errors, latencies) and
 * starts a new window; `stop()` stops sending and waits for the answers still due.
 */
export function startSoakLoad({ base, account, rate, loginRate, timeoutMs = 10_000 }) {
  let token = account.token;
  const agents = []; // { id, readers }: only agents nobody is reading are deleted
  let window = newWindow();
  let inFlight = 0;
  let sent = 0;
  let slot = 0;
  const started = Date.now();
  const pending = new Set();
  // Past this many unanswered requests the oldest would be timing out anyway: counted as errors
  // rather than sent, so a hung server cannot make the client hoard sockets without bound.
  const maxInFlight = Math.max(512, Math.ceil((rate * timeoutMs) / 1000));

  function newWindow() {
    return { answers: 0, errors: 0, latencies: [], byKind: {}, errorSamples: [] };
  }

  function record(kind, ms, error) {
    const w = window;
    w.answers++;
    w.latencies.push(ms);
    const k = (w.byKind[kind] ??= { answers: 0, errors: 0 });
    k.answers++;
    if (error) {
      w.errors++;
      k.errors++;
      if (w.errorSamples.length < 5) w.errorSamples.push(`${kind}: ${error}`);
    }
  }

  async function send(kind, method, path, { credential, body, expect }) {
    const begun = performance.now();
    let error = null;
    let json = null;
    try {
      const headers = credential ? { authorization: `Bearer ${credential}` } : {};
      if (body) headers['content-type'] = 'application/json';
      const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      if (res.status !== expect) error = `${res.status} ${text.slice(0, 120)}`;
      else if (text) json = JSON.parse(text);
    } catch (e) {
      error = e.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : String(e.cause?.code ?? e.message);
    }
    record(kind, performance.now() - begun, error);
    return json;
  }

  function pick() {
    // The newest agents are read; the oldest nobody is reading are deleted.
    let kind = CYCLE[slot++ % CYCLE.length];
    if (kind === 'get' && agents.length === 0) kind = 'list';
    if (kind === 'delete' && !(agents.length > 10 && agents[0].readers === 0)) kind = 'list';
    return kind;
  }

  async function one() {
    const kind = pick();
    if (kind === 'me') return send(kind, 'GET', '/v1/users/me', { credential: token, expect: 200 });
    if (kind === 'usage') return send(kind, 'GET', '/v1/usage', { credential: account.key, expect: 200 });
    if (kind === 'list') return send(kind, 'GET', '/v1/agents?limit=20', { credential: account.key, expect: 200 });
    if (kind === 'get') {
      const agent = agents[agents.length - 1 - Math.floor(Math.random() * Math.min(10, agents.length))];
      agent.readers++;
      try {
        return await send(kind, 'GET', `/v1/agents/${agent.id}`, { credential: token, expect: 200 });
      } finally {
        agent.readers--;
      }
    }
    if (kind === 'create') {
      const created = await send(kind, 'POST', '/v1/agents', { credential: account.key, expect: 201, body: { name: `Soak agent ${sent}`, model: 'gpt-4o', instructions: 'Answer briefly.' } });
      if (created) agents.push({ id: created.id, readers: 0 });
      return created;
    }
    const agent = agents.shift();
    return send(kind, 'DELETE', `/v1/agents/${agent.id}`, { credential: token, expect: 204 });
  }

  async function login() {
    const res = await send('login', 'POST', '/v1/auth/login', { credential: null, expect: 200, body: { username: account.email, password: account.password } });
    if (res?.access_token) token = res.access_token; // the reads go on with the newest session's token
  }

  function launch(job) {
    inFlight++;
    const p = job().finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }

  // Every 10 ms, send what the schedule says is due by now.
  const ticker = setInterval(() => {
    const due = Math.floor(((Date.now() - started) / 1000) * rate);
    while (sent < due) {
      sent++;
      if (inFlight >= maxInFlight) record('backlog', 0, `more than ${maxInFlight} requests unanswered`);
      else launch(one);
    }
  }, 10);
  const logins = loginRate > 0 ? setInterval(() => launch(login), 1000 / loginRate) : null;

  return {
    window() {
      const w = window;
      window = newWindow();
      return { ...w, inFlight, agents: agents.length };
    },
    async stop() {
      clearInterval(ticker);
      if (logins) clearInterval(logins);
      await Promise.allSettled([...pending]);
    },
  };
}
