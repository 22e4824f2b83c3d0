import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Registry } from 'prom-client';
import { AppError } from '../../core/errors.js';
import { problemResponses } from '../../http/schemas.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(promise: Promise<void>): Promise<void> {
  return Promise.race([promise, new Promise<void>((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref())]);
}

/** Outside /v1: liveness, readiness (every dependency answers) and Prometheus metrics. */
export function healthRoutes(deps: { checks: ReadinessCheck[]; metrics: Registry }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Operations'];
    app.get('/healthz', {
      schema: { tags, operationId: 'healthz', summary: 'The process is up', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    }, async () => ({ status: 'ok' as const }));

    app.get('/readyz', {
      schema: {
        tags, operationId: 'readyz', summary: 'Every dependency (database, Redis) answers',
        response: { 200: Type.Object({ status: Type.Literal('ok'), checks: Type.Record(Type.String(), Type.String()) }), ...problemResponses([503]) },
      },
    }, async () => {
      const results = await Promise.all(deps.checks.map(async (c) => [c.name, await withTimeout(c.check()).then(() => 'ok', () => 'unavailable')] as const));
      const checks = Object.fromEntries(results);
      if (results.some(([, r]) => r !== 'ok')) {
        const down = results.filter(([, r]) => r !== 'ok').map(([n]) => n).join(', ');
        throw new AppError('service_unavailable', `Not ready: ${down} unreachable.`, { checks, headers: { 'Retry-After': '5' } });
      }
      return { status: 'ok' as const, checks };
    });

    app.get('/metrics', {
      schema: { tags, operationId: 'metrics', summary: 'Prometheus metrics', produces: ['text/plain'], response: { 200: Type.String() } },
    }, async (_request, reply) => {
      reply.type(deps.metrics.contentType);
      return deps.metrics.metrics();
    });
  };
}
