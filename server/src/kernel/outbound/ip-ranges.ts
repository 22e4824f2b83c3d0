import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses outbound calls (webhooks) must never reach: anything that is not the public
 * internet. A webhook URL is chosen by a customer, so without this check it could make the
 * server call its own admin ports, the cloud metadata service (169.254.169.254) or the private
 * network behind it (SSRF).
 */

type Range = [bytes: number[], bits: number, label: string];

/**
 * Every entry of IANA's IPv4 special-purpose address registry (whether or not it is marked
 * globally reachable: none is a place a webhook belongs), plus multicast and the reserved 240/4.
 */
const V4_BLOCKED: Range[] = [
  [[0], 8, 'this network'],
  [[10], 8, 'private'],
  [[100, 64], 10, 'carrier-grade NAT'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local (cloud metadata)'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'IETF protocol assignments'],
  [[192, 0, 2], 24, 'documentation'],
  [[192, 31, 196], 24, 'AS112'],
  [[192, 52, 193], 24, 'AMT relay'],
  [[192, 88, 99], 24, '6to4 relay'],
  [[192, 168], 16, 'private'],
  [[192, 175, 48], 24, 'AS112'],
  [[198, 18], 15, 'benchmarking'],
  [[198, 51, 100], 24, 'documentation'],
  [[203, 0, 113], 24, 'documentation'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
];

/**
 * Every entry of IANA's IPv6 special-purpose address registry except the three that carry an
 * IPv4 address (IPv4-mapped ::ffff:0:0/96, the well-known NAT64 prefix 64:ff9b::/96 and 6to4
 * 2002::/16: see embeddedV4, which judges them by that address), plus the non-global space.
 * 2001::/23 goes whole: Teredo (2001::/32) hides its client's address, the rest are protocol
 * anycasts and benchmarking. The local-use NAT64 prefix 64:ff9b:1::/48 translates into a
 * private network, so it is refused outright.
 */
const V6_BLOCKED: Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[], 128, 'unspecified'],
  [[], 96, 'IPv4-compatible (deprecated)'],
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'local-use IPv4/IPv6 translation'],
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'discard-only'],
  [[0x01, 0x00, 0, 0, 0, 0, 0, 1], 64, 'dummy prefix'],
  [[0x20, 0x01, 0x00], 23, 'IETF protocol assignments (Teredo included)'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'],
  [[0x26, 0x20, 0x00, 0x4f, 0x80, 0x00], 48, 'AS112'],
  [[0x3f, 0xff, 0x00], 20, 'documentation'],
  [[0x5f, 0x00], 16, 'segment routing (SRv6) SIDs'],
  [[0xfc], 7, 'unique local (private)'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'site-local'],
  [[0xff], 8, 'multicast'],
];

/** Outside 2000::/3 nothing is allocated for the public internet. */
const V6_GLOBAL_UNICAST: Range = [[0x20], 3, 'global unicast'];

function inRange(address: number[], [prefix, bits]: Range): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((address[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function parseV4(text: string): number[] {
  return text.split('.').map(Number);
}

/** 16 bytes of an IPv6 address, including forms with `::` and a trailing dotted quad. */
export function parseV6(text: string): number[] {
  let body = text.replace(/%.*$/, ''); // zone id (fe80::1%eth0)
  let tail: number[] = [];
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (quad) {
    tail = parseV4(quad[2]!);
    body = quad[1]!.endsWith('::') ? quad[1]! : quad[1]!.slice(0, -1);
  }
  const [head, rest] = body.split('::') as [string, string | undefined];
  const words = (s: string) => (s === '' ? [] : s.split(':').map((w) => parseInt(w, 16)));
  const left = words(head);
  const right = rest === undefined ? [] : words(rest);
  const wordCount = 8 - tail.length / 2;
  const middle = Array<number>(Math.max(0, wordCount - left.length - right.length)).fill(0);
  const all = [...left, ...middle, ...right].slice(0, wordCount);
  const bytes = all.flatMap((w) => [(w >> 8) & 0xff, w & 0xff]);
  return [...bytes, ...tail];
}

/**
 * The IPv4 address an IPv6 one stands for, so it is judged as that one: IPv4-mapped
 * (::ffff:a.b.c.d, in any notation), IPv4-translated (::ffff:0:a.b.c.d), the well-known NAT64
 * prefix and 6to4. A socket to any of them reaches that IPv4 address.
 */
function embeddedV4(b: number[]): number[] | undefined {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12); // ::ffff:a.b.c.d
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return b.slice(12); // ::ffff:0:a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return b.slice(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6); // 2002::/16 (6to4)
  return undefined;
}

/** Why the address is not a public one, or undefined when it is public. */
export function blockedReason(ip: string): string | undefined {
  const address = ip.replace(/^\[|\]$/g, '');
  if (isIPv4(address)) {
    const bytes = parseV4(address);
    if (bytes.every((b) => b === 255)) return 'broadcast';
    return V4_BLOCKED.find((r) => inRange(bytes, r))?.[2];
  }
  if (isIPv6(address)) {
    const bytes = parseV6(address);
    const v4 = embeddedV4(bytes);
    if (v4) return blockedReason(v4.join('.'));
    return V6_BLOCKED.find((r) => inRange(bytes, r))?.[2] ?? (inRange(bytes, V6_GLOBAL_UNICAST) ? undefined : 'reserved (not global unicast)');
  }
  return 'not an IP address';
}
