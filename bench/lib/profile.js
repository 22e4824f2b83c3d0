// Reads a V8 .cpuprofile (from `node --cpu-prof`) and says where the time went: by function
// (self time), by area (Gatehouse file, npm package, Node internals) and, for Gatehouse's own
// functions, inclusive time (the function and everything it called).
import { readFile } from 'node:fs/promises';

function area(url) {
  if (!url) return '(native / V8)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\/(server\/src\/.+|bench\/.+)$/.exec(url);
  if (own) return own[1];
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

function label(frame) {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  // Code run through tsx often reports line 1 for everything: the file then says enough.
  return `${name}  ${area(frame.url)}${frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : ''}`;
}

/** Gatehouse's files, by the phase of a request they serve. */
const CALLER_FILES = /\/access\/caller\/|\/api-key-verifier\.ts|\/access-tokens\.ts|\/account-cache\.ts|\/organization-cache\.ts|\/kernel\/limits\/|\/kernel\/eager\.ts|\/kernel\/revocation\.ts/;
const HANDLER_FILES = /\.(routes|service|repository|presenter|queries)\.ts$|\/kernel\/db\/|\/kernel\/events\//;

/**
 * The phase of a request a sample belongs to, by the innermost frame that has a source (a native
 * call such as a hash or a SQLite step is charged to the JavaScript that made it). The whole rest
 * of a request runs inside the onRequest hook's stack when the caller is decided at once, so the
 * outermost frame would charge everything to the caller's resolution.
 */
function phaseOf(stack) {
  const leaf = stack[0];
  if (leaf.functionName === '(garbage collector)') return 'garbage collection';
  const frame = stack.find((f) => f.url);
  if (!frame) return 'V8 and native code outside JavaScript';
  const where = area(frame.url);
  if (where.startsWith('server/src/')) {
    if (CALLER_FILES.test(where)) return "the caller's resolution (credential, account, organization, budget, role)";
    if (HANDLER_FILES.test(where)) return 'route handlers and their storage';
    if (where.startsWith('server/src/http/')) return 'shared hooks (http/: headers, validation, histogram, access line, errors)';
    return `Gatehouse: other (${where.replace(/^server\/src\//, '')})`;
  }
  if (/^(pino|thread-stream|sonic-boom|pino-std-serializers|fast-redact)$/.test(where)) return 'logging (pino)';
  if (/^(better-sqlite3|kysely|pg|pg-protocol|ioredis)$/.test(where)) return 'route handlers and their storage';
  if (/^(fastify|find-my-way|fast-json-stringify|avvio|light-my-request|@fastify\/.*|fast-uri|ajv.*|toad-cache|process-warning)$/.test(where)) return 'Fastify (routing, hooks, serialization)';
  if (where === 'node internals') return 'Node (HTTP parsing and writing, sockets, timers, promises)';
  return `other (${where})`;
}

/**
 * `window`: [from, to] in µs of the monotonic clock (process.hrtime, which V8's profile
 * timestamps share): only samples taken under load count, not start-up and account setup.
 * `requests`: how many requests the process served in that window, to give µs per request.
 */
export async function summarizeProfile(file, { top = 25, requests = 0, window = null } = {}) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Time per sample: the delta that follows it (timeDeltas[i] is the gap before sample i).
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += deltas[i];
    if (window && (t < window[0] || t > window[1])) continue;
    const dt = deltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
  }
  let total = 0;
  let idle = 0;
  const byFunction = new Map();
  const byArea = new Map();
  const inclusive = new Map();
  const byPhase = new Map();
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName !== '(idle)') {
      const stack = [];
      for (let n = id; n !== undefined; n = parent.get(n)) stack.push(nodes.get(n).callFrame);
      const phase = phaseOf(stack);
      byPhase.set(phase, (byPhase.get(phase) ?? 0) + us);
    }
    total += us;
    if (frame.functionName === '(idle)') idle += us;
    const fn = label(frame);
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const a = frame.url ? area(frame.url) : frame.functionName;
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    // Charge every distinct Gatehouse function on the stack once (recursion counted once).
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const f = nodes.get(n).callFrame;
      if (!/\/server\/src\//.test(f.url)) continue;
      const key = label(f);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const busy = total - idle;
  byFunction.delete('(idle)');
  byArea.delete('(idle)');
  const perRequest = (us) => (requests ? `${(us / requests).toFixed(2).padStart(7)} µs/req  ` : '');
  const rows = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([k, us]) => `  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${perRequest(us)}${k}`);
  return [
    `${file}`,
    `  sampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s` +
      (window ? ' under load' : '') +
      (requests ? ` for ${requests.toLocaleString('en-US')} requests = ${(busy / requests).toFixed(1)} µs of CPU per request` : '') +
      '; percentages are of the busy (non-idle) time',
    '  -- by phase of the request --',
    ...rows(byPhase, 20),
    '  -- self time by area --',
    ...rows(byArea, 20),
    '  -- self time by function --',
    ...rows(byFunction, top),
    '  -- inclusive time of Gatehouse functions (server/src) --',
    ...rows(inclusive, top),
  ].join('\n');
}
