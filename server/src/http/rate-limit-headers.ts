import type { FastifyReply } from 'fastify';
import type { RateDecision } from '../modules/limits/rate-limiter.js';

/**
 * API.md §5: the IETF draft headers (RateLimit-Policy for both windows, RateLimit for the
 * tighter one) plus the widely used X-RateLimit-* trio for the tighter window.
 * X-RateLimit-Reset is a Unix time in seconds (as GitHub sends it); RateLimit's t= is a delta.
 * Names in lower case, as Fastify stores them: then it has nothing to convert per request.
 */
export function setRateLimitHeaders(reply: FastifyReply, decision: RateDecision, nowMs: number): void {
  const { minute, day } = decision;
  const tighter = decision.violated === 'day' || day.remaining < minute.remaining ? { name: 'day', w: day } : { name: 'minute', w: minute };
  reply.header('ratelimit-policy', `"minute";q=${minute.limit};w=60, "day";q=${day.limit};w=86400`);
  reply.header('ratelimit', `"${tighter.name}";r=${tighter.w.remaining};t=${tighter.w.resetSeconds}`);
  reply.header('x-ratelimit-limit', String(tighter.w.limit));
  reply.header('x-ratelimit-remaining', String(tighter.w.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(nowMs / 1000) + tighter.w.resetSeconds));
}
