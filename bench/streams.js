#!/usr/bin/env node
// Live-stream fan-out (issue 19): N concurrent chat streams on one instance (embedded), and the
// same with the streams on instance B while messages are posted on instance A (PostgreSQL +
// Redis). Per mode: post-to-receive latency p50/p99/max over every delivery, and the memory an
// idle open stream costs the server (RSS and JS heap, after a full GC, before and after opening).
//   npm run streams -w bench -- [--streams 1000] [--per-account 50] [--rate 40] [--duration 10] [--modes embedded,redis] [--json FILE]
import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { cleanupAll } from './lib/cleanup.js';
import { LIMITS } from './lib/gatehouse-account.js';
import { METRICS_TOKEN, gatehouseCli, newDeployment, startAnotherServer, startGatehouse, teardown } from './lib/gatehouse.js';
import { call, expectStatus } from './lib/http.js';
import { stopAll } from './lib/processes.js';
import { parsePrometheus } from './lib/prometheus.js';
import { openStream } from './lib/sse-receivers.js';

const { values: opts } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    'per-account': { type: 'string', default: '50' },
    rate: { type: 'string', default: '40' },
    duration: { type: 'string', default: '10' },
    modes: { type: 'string', default: 'embedded,redis' },
    json: { type: 'string' },
  },
});
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GC_ON_SIGNAL = fileURLToPath(new URL('./lib/gc-on-signal.js', import.meta.url));
const STREAMS = Number(opts.streams);
const PER_ACCOUNT = Number(opts['per-account']);
const ACCOUNTS = Math.ceil(STREAMS / PER_ACCOUNT);
const RATE = Number(opts.rate);
const DURATION_S = Number(opts.duration);

/** An account (enterprise: huge request limits, 50 open streams) with one agent and one chat. */
async function account(deployment, i) {
  const email = `streams-${i}-${Date.now().toString(36)}@example.com`;
  const password = `bench passphrase ${i} not on any list ${Date.now()}`;
  await expectStatus(deployment.base, 'POST', '/v1/auth/register', 201, { body: { email, password, name: 'Streams' } });
  await gatehouseCli(deployment, ['users', 'set-tier', email, 'enterprise', '--per-minute', String(LIMITS.perMinute), '--per-day', String(LIMITS.perDay)]);
  const token = (await expectStatus(deployment.base, 'POST', '/v1/auth/login', 200, { body: { username: email, password } })).json.access_token;
  const agent = (await expectStatus(deployment.base, 'POST', '/v1/agents', 201, { token, body: { name: 'Bot', model: 'm' } })).json;
  const chat = (await expectStatus(deployment.base, 'POST', '/v1/chats', 201, { token, body: { agent_id: agent.id } })).json;
  return { email, token, chatId: chat.id };
}

/** Resident memory (/proc) and JS heap (/metrics) of a server, after a full GC. */
async function memoryAfterGc(deployment) {
  process.kill(deployment.server.pid, 'SIGUSR2');
  await sleep(1_000);
  const status = readFileSync(`/proc/${deployment.server.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
  const metrics = parsePrometheus((await call(deployment.base, 'GET', '/metrics', { token: METRICS_TOKEN })).text);
  return { rss: rssKb * 1024, heap: metrics.nodejs_heap_size_used_bytes };
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function measure(mode) {
  const a = newDeployment(mode, ROOT, `streams-${mode}-A`);
  const deployments = [a];
  try {
    // One PUBLIC_URL for both instances: it is the tokens' issuer (by default it names the port).
    const env = { STREAM_HEARTBEAT_SECONDS: '15', PUBLIC_URL: 'http://gatehouse.bench' };
    await startGatehouse(a, { nodeArgs: ['--expose-gc', '--import', GC_ON_SIGNAL], env });
    const receiving = mode === 'redis' ? await startAnotherServer(a, ROOT, `streams-${mode}-B`) : a;
    if (receiving !== a) deployments.push(receiving);
    const accounts = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push(await account(a, i));
    // Without Redis the server learns of the new tier when its 5 s organization cache expires.
    for (const { token } of accounts) {
      for (let tries = 0; (await call(receiving.base, 'GET', '/v1/users/me', { token })).json.tier !== 'enterprise'; tries++) {
        if (tries > 80) throw new Error(`setup: the tier change did not reach ${receiving.name}`);
        await sleep(250);
      }
    }
    const sentAt = new Map();
    const latencies = [];
    const onEvent = (event, receivedAt) => {
      const at = sentAt.get(event.data?.content);
      if (at !== undefined) latencies.push(receivedAt - at);
    };
    const openAll = async () => {
      const opened = [];
      for (let i = 0; i < STREAMS; i += 50) {
        const batch = [];
        for (let j = i; j < Math.min(STREAMS, i + 50); j++) {
          const { token, chatId } = accounts[Math.floor(j / PER_ACCOUNT)];
          batch.push(openStream(`${receiving.base}/v1/chats/${chatId}/stream`, token, onEvent));
        }
        opened.push(...(await Promise.all(batch)));
      }
      return opened;
    };
    // A first round of streams opened and closed again, so what the process keeps once it has
    // served that many (V8's young generation grown to its size, allocator pools) is in the
    // baseline; the difference is then what open streams hold.
    for (const s of await openAll()) s.close();
    await sleep(1_500);
    const before = await memoryAfterGc(receiving);
    const streams = await openAll();
    await sleep(2_000);
    const open = await memoryAfterGc(receiving);

    // Posts at a fixed rate, round-robin over the accounts; each reaches PER_ACCOUNT streams.
    const total = Math.round(RATE * DURATION_S);
    const posts = [];
    const started = performance.now();
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const { token, chatId } = accounts[n % accounts.length];
      const content = `bench-${n}`;
      sentAt.set(content, performance.now());
      posts.push(call(a.base, 'POST', `/v1/chats/${chatId}/messages`, { token, body: { role: 'user', content } }).then((res) => {
        if (res.status !== 201) throw new Error(`post answered ${res.status}: ${res.text}`);
      }));
    }
    await Promise.all(posts);
    const expected = total * Math.min(PER_ACCOUNT, STREAMS);
    const deadline = Date.now() + 10_000;
    while (latencies.length < expected && Date.now() < deadline) await sleep(100);
    for (const s of streams) s.close();

    const sorted = latencies.slice().sort((x, y) => x - y);
    return {
      mode: mode === 'redis' ? 'PostgreSQL + Redis, streams on B, posts on A' : 'embedded, one instance',
      streams: STREAMS, posts: total, deliveries: latencies.length, expected,
      p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1),
      rssPerStream: (open.rss - before.rss) / STREAMS, heapPerStream: (open.heap - before.heap) / STREAMS,
    };
  } finally {
    for (const d of deployments.reverse()) await teardown(d);
  }
}

const results = [];
try {
  for (const mode of opts.modes.split(',')) results.push(await measure(mode));
} finally {
  await stopAll();
  await cleanupAll();
}
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (v) => `${v.toFixed(1)} ms`;
console.log(`\nLive streams: ${STREAMS} open chat streams (${PER_ACCOUNT} per account, one chat each), ${RATE} messages/s for ${DURATION_S} s, each delivered to the ${PER_ACCOUNT} streams of its chat`);
console.log('| mode | deliveries | post→receive p50 | p99 | max | memory per idle stream (RSS) | (JS heap) |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(`| ${r.mode} | ${r.deliveries} of ${r.expected} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${kb(r.rssPerStream)} | ${kb(r.heapPerStream)} |`);
}
if (opts.json) await writeFile(opts.json, JSON.stringify(results, null, 2));
