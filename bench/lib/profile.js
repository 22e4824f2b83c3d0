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
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id).callFrame;
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
    '  -- self time by area --',
    ...rows(byArea, 20),
    '  -- self time by function --',
    ...rows(byFunction, top),
    '  -- inclusive time of Gatehouse functions (server/src) --',
    ...rows(inclusive, top),
  ].join('\n');
}
