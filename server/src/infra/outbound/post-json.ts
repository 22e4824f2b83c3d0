import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { assertPublicLiteral, bareHost, guardedLookup, OutboundRefused, parseOutboundUrl } from './url-guard.js';

/**
 * One outbound POST to a customer's URL: bounded in time, never follows redirects (a redirect to
 * an internal address would bypass the guard), never reads the answer's body (only its status
 * matters), and connects only to addresses the SSRF guard accepts unless allowPrivate is set.
 */
export interface PostResult {
  status: number | null;
  /** Why no status was obtained: refused, network error, timeout. */
  error: string | null;
  durationMs: number;
  /** Stopped by our own shutdown, not a verdict on the receiver. */
  aborted: boolean;
}

export interface PostOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

const describe = (error: unknown): string => {
  if (error instanceof OutboundRefused) return error.message;
  const e = error as { code?: string; message?: string };
  return (e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? 'request failed')).slice(0, 500);
};

export function postJson(rawUrl: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const result = (status: number | null, error: string | null, aborted = false): PostResult =>
    ({ status, error, aborted, durationMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = parseOutboundUrl(rawUrl);
    if (!options.allowPrivate) assertPublicLiteral(url);
  } catch (error) {
    return Promise.resolve(result(null, describe(error)));
  }
  if (options.signal?.aborted) return Promise.resolve(result(null, 'aborted', true));

  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      protocol: url.protocol,
      hostname: bareHost(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Gatehouse-Webhooks/1', ...headers },
      agent: false, // a fresh, guarded connection every time: no pooled socket to an unchecked address
      ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => {
      finish(result(null, `timed out after ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish(result(null, 'aborted', true));
      req.destroy();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res: IncomingMessage) => {
      finish(result(res.statusCode ?? null, null));
      // Only the status counts; drop the connection rather than read an unbounded body.
      res.destroy();
    });
    req.on('error', (error) => finish(result(null, describe(error))));
    req.end(body);
  });
}
