import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { blockedReason } from './ip-ranges.js';

/**
 * The SSRF guard for URLs a customer gives us (webhooks). Checked when the URL is saved and again
 * on every connection: the connection goes through `guardedLookup`, which validates the very
 * addresses the socket then uses, so a DNS answer that changes between check and use (DNS
 * rebinding) cannot slip a private address in.
 */
export type RefusalCode = 'invalid_format' | 'unsupported_scheme' | 'credentials_in_url' | 'private_address' | 'unresolvable_host';

export class OutboundRefused extends Error {
  constructor(readonly code: RefusalCode, message: string) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

const LOOKUP_TIMEOUT_MS = 5_000;

/** Host as the socket layer wants it: `[::1]` → `::1`. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Shape only, no I/O: http(s), a host, no user:password. WHATWG parsing turns 0x7f000001 into 127.0.0.1. */
export function parseOutboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused('invalid_format', 'url must be an absolute http or https URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefused('unsupported_scheme', 'url must use https or http.');
  if (url.username || url.password) throw new OutboundRefused('credentials_in_url', 'url must not contain a user name or password.');
  if (!url.hostname) throw new OutboundRefused('invalid_format', 'url must name a host.');
  return url;
}

/**
 * Says what kind of address is refused, never which address: naming what a host resolved to
 * would let any account map internal host names through our resolver.
 */
function refusePrivate(address: string): void {
  const reason = blockedReason(address);
  if (reason) throw new OutboundRefused('private_address', `url's host is or resolves to a non-public address (${reason}); only public addresses are allowed.`);
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new OutboundRefused('unresolvable_host', `${host} did not resolve in time.`)), LOOKUP_TIMEOUT_MS);
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error || addresses.length === 0) reject(new OutboundRefused('unresolvable_host', `${host} does not resolve to an address.`));
      else resolve(addresses);
    });
  });
}

/**
 * Full check at save time: shape, then every address the host resolves to must be public (the
 * client may connect to any of them). With allowPrivate only the shape is checked.
 */
export async function checkOutboundUrl(raw: string, options: { allowPrivate: boolean }): Promise<URL> {
  const url = parseOutboundUrl(raw);
  if (options.allowPrivate) return url;
  const host = bareHost(url);
  if (isIP(host)) refusePrivate(host);
  else for (const { address } of await lookupAll(host)) refusePrivate(address);
  return url;
}

/**
 * A `lookup` for http.request that refuses private answers: the socket connects only to
 * addresses validated here. (IP-literal hosts never reach a lookup; callers check those first.)
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  const done = callback as (error: Error | null, address?: string | LookupAddress[], family?: number) => void;
  dnsLookup(hostname, { all: true, verbatim: true, ...(options.family ? { family: options.family } : {}) }, (error, addresses) => {
    if (error) return done(error);
    try {
      for (const { address } of addresses) refusePrivate(address);
    } catch (refused) {
      return done(refused as Error);
    }
    if (options.all) return done(null, addresses);
    const first = addresses[0];
    if (!first) return done(new OutboundRefused('unresolvable_host', `${hostname} does not resolve to an address.`));
    return done(null, first.address, first.family);
  });
};

/** Same rule for a host that is an IP literal (no lookup happens for those). */
export function assertPublicLiteral(url: URL): void {
  const host = bareHost(url);
  if (isIP(host)) refusePrivate(host);
}
