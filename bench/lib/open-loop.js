// A fixed-rate, open-loop load over keep-alive connections. Requests leave on a schedule whatever
// happened to the earlier ones, and each latency is timed from the request's scheduled send
// time, not from when it went out: a stalled server shows in the latency of every request that
// was due meanwhile (no coordinated omission, which a closed loop such as autocannon's
// `overallRate` has: a connection waiting for its answer sends nothing).
// The client is raw sockets with prebuilt requests and a minimal response reader (answers with a
// Content-Length, as Fastify's JSON answers have), since on a 2-core machine the generator's own
// CPU is taken from the server: node:http cost about 85 µs a request here, this 40–55.
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { cpuTimeUs } from './processes.js';

/** The bytes of one HTTP/1.1 request, built once and sent as often as needed. */
export function rawRequest(url, { method = 'GET', path, headers = {}, body }) {
  const { host } = new URL(url);
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  if (body !== undefined) lines.push(`content-length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

/**
 * A thread that wakes every millisecond on the dot (a futex wait, not libuv's millisecond timers,
 * which fire up to a millisecond late) and posts a message, which wakes the main thread at once.
 */
const METRONOME = `
const { parentPort, workerData: { origin, ticks } } = require('node:worker_threads');
const cell = new Int32Array(new SharedArrayBuffer(4));
for (let k = 1; k <= ticks; k++) {
  const wait = origin + k - (performance.timeOrigin + performance.now());
  if (wait > 0) Atomics.wait(cell, 0, 0, wait);
  parentPort.postMessage(k);
}`;

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * `rate` requests a second for `seconds`, the schedule in bursts each millisecond (request i is
 * due at floor(i · 1000 / rate) ms: 5 a millisecond at 5,000/s), on the metronome's ticks.
 * `request(i)` gives the request's bytes (rawRequest); `check(status, body, i)` returns null or
 * what is wrong. Connections: `warm` opened before the clock starts, more (up to `maxSockets`)
 * when all are busy, then a queue. `process`: the server's child process, for its CPU per
 * request. Resolves with the fields of load.js's measurements, plus max, the share slower than
 * `slowMs`, errors (`failed`: answered wrongly or cut off; `unanswered`: no answer within
 * `timeoutMs` of the last send), the p99 over every request asked (`p99Asked`, the unanswered
 * counted as the slowest), the p99 from the actual send (sendP99) and the sender's own lag and CPU.
 */
export async function openLoop({ url, rate, seconds, request, check, process: server, slowMs = 2, warm = 16, maxSockets = 512, timeoutMs = 10_000 }) {
  const { hostname, port } = new URL(url);
  const total = Math.round(rate * seconds);
  const latency = new Float64Array(total).fill(NaN);
  const fromSend = new Float64Array(total).fill(NaN);
  const lag = new Float64Array(total);
  const problems = [];
  const idle = [];
  const sockets = new Set();
  const queue = [];
  let answered = 0;
  let sent = 0;
  let lastAnswer = 0;
  let started = 0;
  const due = (i) => started + Math.floor((i * 1000) / rate);
  let onAnswer = () => {};

  const answer = (i, error) => {
    const now = performance.now();
    if (error) problems.push(error);
    else {
      latency[i] = now - due(i);
      fromSend[i] = now - due(i) - lag[i];
    }
    lastAnswer = now;
    answered++;
    onAnswer();
  };
  function connect() {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
      const conn = { socket, current: -1, buffer: null };
      sockets.add(conn);
      socket.once('connect', () => resolve(conn));
      socket.once('error', reject); // before the connect: nothing else is waiting on it
      socket.on('data', (chunk) => {
        conn.buffer = conn.buffer ? Buffer.concat([conn.buffer, chunk]) : chunk;
        const end = conn.buffer.indexOf(HEADER_END);
        if (end < 0) return;
        const head = conn.buffer.toString('latin1', 0, end);
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (!length) return fail(conn, 'an answer without content-length');
        if (conn.buffer.length < end + 4 + Number(length[1])) return;
        const body = conn.buffer.toString('utf8', end + 4, end + 4 + Number(length[1]));
        conn.buffer = null;
        const i = conn.current;
        conn.current = -1;
        answer(i, check(Number(head.slice(9, 12)), body, i));
        release(conn);
      });
      socket.on('error', (e) => fail(conn, e.code ?? e.message));
      socket.on('close', () => fail(conn, 'connection closed by the server'));
    });
  }
  function fail(conn, error) {
    sockets.delete(conn);
    const at = idle.indexOf(conn);
    if (at >= 0) idle.splice(at, 1);
    if (conn.current >= 0) answer(conn.current, error);
    conn.current = -1;
    conn.socket.destroy();
  }
  function write(conn, i) {
    conn.current = i;
    lag[i] = performance.now() - due(i);
    conn.socket.write(request(i));
  }
  function release(conn) {
    if (queue.length) write(conn, queue.shift());
    else idle.push(conn);
  }
  function send(i) {
    const conn = idle.pop();
    if (conn) return write(conn, i);
    queue.push(i);
    if (sockets.size < maxSockets) connect().then(release, () => {}); // a queued request waits for the next free one
  }

  for (const conn of await Promise.all(Array.from({ length: warm }, connect))) idle.push(conn);
  const cpuBefore = server ? cpuTimeUs(server.pid) : null;
  const ownBefore = process.cpuUsage();
  started = performance.now();
  await new Promise((resolve) => {
    let timer = null;
    let metronome = null;
    const done = () => {
      clearTimeout(timer);
      void metronome.terminate();
      resolve();
    };
    onAnswer = () => answered === total && done();
    const tick = () => {
      const now = performance.now();
      while (sent < total && due(sent) <= now) send(sent++);
      if (sent === total && timer === null) timer = setTimeout(done, timeoutMs);
    };
    metronome = new Worker(METRONOME, { eval: true, workerData: { origin: performance.timeOrigin + started, ticks: Math.ceil((total * 1000) / rate) } });
    metronome.on('message', tick);
    metronome.unref();
    tick();
  });
  const cpuAfter = server ? cpuTimeUs(server.pid) : null;
  const own = process.cpuUsage(ownBefore);
  for (const conn of sockets) {
    conn.socket.removeAllListeners('close');
    conn.socket.destroy();
  }
  const ok = Array.from(latency).filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const lags = Array.from(lag.subarray(0, sent)).sort((a, b) => a - b);
  const service = Array.from(fromSend).filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (answered < total) problems.push(`${total - answered} not answered within ${timeoutMs} ms of the last send`);
  const secs = (lastAnswer - started) / 1000;
  // Over every request asked, one never answered counted as slower than any answer: the p99 of a
  // server that could not keep up with the rate (Infinity when more than 1% got no answer).
  const everyOne = [...ok, ...Array.from({ length: total - answered }, () => Infinity)];
  return {
    rps: ok.length / secs, requests: ok.length, seconds: secs, asked: total,
    p50: percentile(ok, 50), p99: percentile(ok, 99), max: ok.at(-1), slowShare: ok.filter((v) => v > slowMs).length / Math.max(1, ok.length),
    p99Asked: percentile(everyOne, 99), unanswered: total - answered, failed: answered - ok.length,
    errors: total - ok.length, problems: [...new Set(problems)].slice(0, 5),
    sendP99: percentile(service, 99), lagP99: percentile(lags, 99), senderCpuUs: (own.user + own.system) / Math.max(1, answered),
    cpuUs: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / Math.max(1, answered),
  };
}
