import type { IncomingMessage } from 'node:http';
import { newId } from '../kernel/ids.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** Keep a caller's X-Request-Id when it is short and harmless (it lands in logs), else mint one. */
export function generateRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)) return incoming;
  return newId('request');
}
