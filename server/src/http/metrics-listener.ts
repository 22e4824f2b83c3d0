import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { carriesMetricsToken } from './metrics-access.js';

export interface MetricsListener {
  /** The port it listens on (the one asked for, or the kernel's pick for 0). */
  port: number;
  close(): Promise<void>;
}

function problem(publicUrl: string, status: number, code: string, title: string, detail: string): [number, string] {
  return [status, JSON.stringify({ type: `${publicUrl}/docs/errors#${code}`, title, status, detail, code })];
}

/**
 * The Prometheus scrape endpoint on a port of its own (METRICS_PORT, on METRICS_HOST: loopback
 * unless the operator opens it): GET /metrics and nothing else. Plain node:http, no Fastify:
 * none of the API's hooks, limits or logs apply to a scraper, and it never shows in the API's
 * own metrics. With METRICS_TOKEN set it asks for it here too.
 */
export function startMetricsListener(input: { registry: Registry; host: string; port: number; token: string | null; publicUrl: string }): Promise<MetricsListener> {
  const refuse = (status: number, code: string, title: string, detail: string) => problem(input.publicUrl, status, code, title, detail);
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const refusal =
      path !== '/metrics' ? refuse(404, 'not_found', 'Not found', 'Only /metrics is served here.')
        : request.method !== 'GET' && request.method !== 'HEAD' ? refuse(405, 'method_not_allowed', 'Method not allowed', 'GET /metrics.')
          : input.token !== null && !carriesMetricsToken(request.headers.authorization, input.token)
            ? refuse(401, 'authentication_required', 'Authentication required', 'Send Authorization: Bearer <METRICS_TOKEN>.')
            : undefined;
    if (refusal) {
      response.writeHead(refusal[0], { 'content-type': 'application/problem+json', 'cache-control': 'no-store' }).end(refusal[1]);
      return;
    }
    input.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': input.registry.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'application/problem+json' }).end(refuse(500, 'internal_error', 'Internal error', 'The metrics could not be collected.')[1]),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(input.port, input.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
