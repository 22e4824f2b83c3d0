import http from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import type { HotPath } from './hot-path.js';

/**
 * Fastify's `serverFactory`: the HTTP server Fastify would build, with the hot path in front of
 * Fastify's own request handler. Everything else is what Fastify does for a server it creates
 * itself (fastify/lib/server.js, getServerInstance): the `http` options (header and request
 * deadlines, how often Node checks them), keep-alive, request and socket timeouts.
 */
export function serverWithHotPath(hotPath: HotPath): FastifyServerFactory {
  return (handler, opts) => {
    const options = opts as {
      http?: http.ServerOptions; keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number; maxRequestsPerSocket?: number;
    };
    const server = http.createServer(options.http ?? {}, hotPath.listener(handler as http.RequestListener));
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}
