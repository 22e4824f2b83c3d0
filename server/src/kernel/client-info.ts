/** Who is on the other end, as far as we can tell: for the security log and sessions. */
export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

/** From a request (Fastify's, or anything with its `ip` and headers). */
export function clientOf(request: { ip: string; headers: { 'user-agent'?: string | undefined } }): ClientInfo {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}
