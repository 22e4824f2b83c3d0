import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Registry } from 'prom-client';
import { AppError } from '../kernel/errors.js';
import { problemResponses } from './schemas.js';
import { carriesMetricsToken } from './metrics-access.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(promise: Promise<void>): Promise<void> {
  return Promise.race([promise, new Promise<void>((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS).unref())]);
}

/** Outside /v1: liveness, readiness (every dependency answers) and Prometheus metrics. */
export function healthRoutes(deps: { checks: ReadinessCheck[]; metrics: Registry; metricsToken: string | null }): FastifyPluginAsyncTypebox {
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

    // Per-route counts by status, memory and the Node version are for the operator: on the public
    // port only to the bearer of METRICS_TOKEN; else as absent as any unknown path (the metrics
    // listener, METRICS_PORT, serves them on loopback).
    app.get('/metrics', {
      schema: {
        tags, operationId: 'metrics', summary: 'Prometheus metrics: only with METRICS_TOKEN set, to its bearer (else 404; see METRICS_PORT)',
        produces: ['text/plain'], response: { 200: Type.String(), ...problemResponses([401, 404]) },
      },
    }, async (request, reply) => {
      if (deps.metricsToken === null) throw new AppError('not_found', `No route matches GET ${request.url.split('?')[0]}.`);
      if (!carriesMetricsToken(request.headers.authorization, deps.metricsToken)) throw new AppError('authentication_required', 'Send Authorization: Bearer <METRICS_TOKEN>.');
      reply.type(deps.metrics.contentType);
      return deps.metrics.metrics();
    });
  };
}
