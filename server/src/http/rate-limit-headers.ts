import type { FastifyReply } from 'fastify';
import type { RateDecision } from '../kernel/limits/limiter.js';

// The policy string changes only with an account's limits; most traffic comes from a few
// accounts, so remembering the last one saves building it on nearly every request.
let lastPolicy = { minute: -1, day: -1, value: '' };
function policyOf(minuteLimit: number, dayLimit: number): string {
  if (lastPolicy.minute !== minuteLimit || lastPolicy.day !== dayLimit) {
    lastPolicy = { minute: minuteLimit, day: dayLimit, value: `"minute";q=${minuteLimit};w=60, "day";q=${dayLimit};w=86400` };
  }
  return lastPolicy.value;
}

/**
 * The IETF draft headers (RateLimit-Policy for both windows, RateLimit for the
 * tighter one) plus the widely used X-RateLimit-* trio for the tighter window, appended to
 * `out` as name, value, name, value… (the flat form `res.writeHead` takes).
 * One story in all of them: RateLimit's `r` is the requests left, its `t` the seconds until one
 * more becomes available (the draft's "until additional quota is made available"; 0 when none is
 * spent), X-RateLimit-Reset the same moment as a Unix time in seconds, and on a 429 Retry-After
 * is that same wait. Names in lower case, as Fastify stores them: nothing to convert per request.
 */
export function appendRateLimitHeaders(out: string[], decision: RateDecision, nowMs: number): void {
  const { minute, day } = decision;
  const dayIsTighter = decision.violated === 'day' || day.remaining < minute.remaining;
  const w = dayIsTighter ? day : minute;
  out.push(
    'ratelimit-policy', policyOf(minute.limit, day.limit),
    'ratelimit', `"${dayIsTighter ? 'day' : 'minute'}";r=${w.remaining};t=${w.nextSeconds}`,
    'x-ratelimit-limit', String(w.limit),
    'x-ratelimit-remaining', String(w.remaining),
    'x-ratelimit-reset', String(Math.ceil(nowMs / 1000) + w.nextSeconds),
  );
}

/** The same headers on a Fastify reply (every authenticated answer, errors included). */
export function setRateLimitHeaders(reply: FastifyReply, decision: RateDecision, nowMs: number): void {
  const headers: string[] = [];
  appendRateLimitHeaders(headers, decision, nowMs);
  for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]);
}
