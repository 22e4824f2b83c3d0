/**
 * A real HTTP proxy in front of the test server, standing for what sits between a phone and the
 * service: it can drop connections (offline) or answer 503 for a path a number of times (a load
 * balancer while the service restarts). It records every request that reached it.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FaultProxy {
  base: string;
  /** Every request that arrived, as "METHOD /path". */
  requests: string[];
  count(method: string, path: string): number;
  /** Drop every connection at once, as a phone without network sees it. */
  offline: boolean;
  /** Answer the next `times` requests to `path` with 503 (problem+json, Retry-After: 0). */
  failNext(path: string, times: number): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const failures = new Map<string, number>();
  const sockets = new Set<Socket>();
  const state = { offline: false };
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (state.offline) return req.socket.destroy();
    requests.push(`${req.method} ${path}`);
    const left = failures.get(path) ?? 0;
    if (left > 0) {
      failures.set(path, left - 1);
      res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '0' });
      return res.end(JSON.stringify({ type: 'about:blank', title: 'Service unavailable', status: 503, detail: 'The upstream is restarting.', code: 'service_unavailable', request_id: 'req_proxy' }));
    }
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    if (state.offline) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    count: (method, path) => requests.filter((r) => r === `${method} ${path}`).length,
    get offline() {
      return state.offline;
    },
    set offline(value: boolean) {
      state.offline = value;
      if (value) for (const socket of sockets) socket.destroy();
    },
    failNext: (path, times) => void failures.set(path, times),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
