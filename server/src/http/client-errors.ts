import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { newId } from '../kernel/ids.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../kernel/errors.js';
import { problemTypeUri, type ProblemBody } from './problem.js';

/** What Node's parser reports before a request exists, and the problem each one becomes. */
function problemFor(code: string | undefined): { code: ErrorCode; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { code: 'header_too_large', detail: 'The request headers are larger than 16 KiB in all.' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { code: 'request_timeout', detail: 'The request was not received in time.' };
  return { code: 'invalid_request', detail: 'The request could not be read.' };
}

/**
 * Fastify's `clientErrorHandler`: errors Node's HTTP parser raises before Fastify sees a request
 * (headers over the limit, a request too slow to arrive, bytes that are not HTTP). Fastify's own
 * answer is a plain JSON body; this one is problem+json like every other error, then the
 * connection is closed, as Node does.
 */
export function clientErrorHandler(publicUrl: string) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // The peer is gone: nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A connection that has sent nothing has no request to answer. Node's headers deadline runs
    // from the connection's opening, so a client's pooled connection that waited unused got a 408
    // it would read as the answer to the next request it sent (seen under steady load). Such a
    // connection is closed without a word, as an idle keep-alive connection is; clients reconnect.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0) {
      socket.destroy();
      return;
    }
    if (socket.writable) {
      const { code, detail } = problemFor(error.code);
      const { status, title } = ERROR_CATALOGUE[code];
      const requestId = newId('request');
      const body: ProblemBody = { type: problemTypeUri(publicUrl, code), title, status, detail, code, request_id: requestId };
      const json = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(json)}\r\nX-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`,
      );
    }
    socket.destroy(error);
  };
}
