import type { FastifyRequest } from 'fastify';

/** Who is on the other end, as far as we can tell: for the security log and sessions. */
export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

export function clientOf(request: FastifyRequest): ClientInfo {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}
