import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { assertPublicLiteral, bareHost, guardedLookup, OutboundRefused, parseOutboundUrl } from './url-guard.js';

/** What a guarded GET of a JSON document found: the parsed body and how long it may be kept. */
export interface FetchedJson {
  body: unknown;
  /** `Cache-Control: max-age`, when the answer had one. */
  maxAgeSeconds: number | null;
}

/**
 * One outbound GET of a small JSON document at a URL someone else named (an app's client
 * metadata): through the same SSRF guard as webhooks (only public addresses unless allowPrivate,
 * checked at connect time), no redirects followed, one deadline for the whole exchange, at most
 * `maxBytes` read. Rejects with a sentence fit to show the person or the app.
 */
export function getJson(rawUrl: string, options: { allowPrivate: boolean; timeoutMs: number; maxBytes: number }): Promise<FetchedJson> {
  let url: URL;
  try {
    url = parseOutboundUrl(rawUrl);
    if (!options.allowPrivate) assertPublicLiteral(url);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new Error(reason));
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      protocol: url.protocol, hostname: bareHost(url), port: url.port || undefined, path: `${url.pathname}${url.search}`, method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'Gatehouse/1' },
      agent: false, // a fresh, guarded connection every time
      ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => fail(`no answer within ${options.timeoutMs} ms`), options.timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) return fail(`answered ${res.statusCode ?? 'nothing'}, not 200`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(`is larger than ${options.maxBytes} bytes`);
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return reject(new Error('is not JSON'));
        }
        const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(String(res.headers['cache-control'] ?? ''))?.[1];
        resolve({ body, maxAgeSeconds: maxAge === undefined ? null : Number(maxAge) });
      });
      res.on('error', () => fail('broke off'));
    });
    req.on('error', (error) => fail(error instanceof OutboundRefused ? error.message : 'could not be reached'));
    req.end();
  });
}
