import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { assertPublicLiteral, bareHost, guardedLookup, OutboundRefused, parseOutboundUrl } from './url-guard.js';

/**
 * One outbound POST to a customer's URL: bounded in time, never follows redirects (a redirect to
 * an internal address would bypass the guard), reads at most `excerptBytes` of the answer's body
 * (then drops the connection), and connects only to addresses the SSRF guard accepts unless
 * allowPrivate is set. One deadline (`timeoutMs`) covers the whole exchange: a receiver that
 * answers its status and then trickles its body gets the status recorded with what had arrived.
 */
export interface PostResult {
  status: number | null;
  /** Why no status was obtained: refused, network error, timeout. */
  error: string | null;
  /** Until the status line and headers arrived (or the failure). */
  durationMs: number;
  /** Stopped by our own shutdown before any answer, not a verdict on the receiver. */
  aborted: boolean;
  /** The first bytes of the answer's body (at most `excerptBytes`); null when there was no answer. */
  excerpt: Buffer | null;
  /** The body went on past the excerpt. */
  excerptCut: boolean;
}

export interface PostOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** How much of the answer's body to keep (0, the default: none is read). */
  excerptBytes?: number;
}

const describe = (error: unknown): string => {
  if (error instanceof OutboundRefused) return error.message;
  const e = error as { code?: string; message?: string };
  return (e.code ? `${e.code}: ${e.message ?? ''}` : (e.message ?? 'request failed')).slice(0, 500);
};

export function postJson(rawUrl: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const result = (status: number | null, error: string | null, aborted = false): PostResult =>
    ({ status, error, aborted, durationMs: Math.round(performance.now() - started), excerpt: null, excerptCut: false });
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
    /** Set once the status arrived: from then on, every way out keeps it and the bytes read so far. */
    let answered: PostResult | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const finishAnswered = (cut: boolean) => {
      if (answered) finish({ ...answered, excerpt: Buffer.concat(chunks, kept), excerptCut: cut });
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
      // A status already in hand stands (the receiver did answer); only its body was slow.
      if (answered) finishAnswered(true);
      else finish(result(null, `timed out after ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      // After the status, the attempt happened: record it rather than hand the claim back and send twice.
      if (answered) finishAnswered(true);
      else finish(result(null, 'aborted', true));
      req.destroy();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res: IncomingMessage) => {
      answered = result(res.statusCode ?? null, null);
      const limit = options.excerptBytes ?? 0;
      if (limit <= 0) {
        finishAnswered(false);
        res.destroy(); // only the status counts: drop the connection rather than read the body
        return;
      }
      res.on('data', (chunk: Buffer) => {
        const room = limit - kept;
        if (room > 0) {
          chunks.push(chunk.subarray(0, room));
          kept += Math.min(room, chunk.length);
        }
        // Enough (and more exists): stop reading, whatever the body's size.
        if (chunk.length > room) {
          finishAnswered(true);
          res.destroy();
        }
      });
      res.on('end', () => finishAnswered(false));
      res.on('error', () => finishAnswered(true));
      res.on('close', () => finishAnswered(!res.complete));
    });
    req.on('error', (error) => {
      if (answered) finishAnswered(true);
      else finish(result(null, describe(error)));
    });
    req.end(body);
  });
}
