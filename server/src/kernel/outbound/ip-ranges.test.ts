import { describe, expect, it } from 'vitest';
import { blockedReason, parseV6 } from './ip-ranges.js';

describe('blockedReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['10.0.0.1', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'], ['169.254.169.254', 'link-local (cloud metadata)'], ['0.0.0.0', 'this network'], ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'], ['224.0.0.1', 'multicast'], ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'], ['::', 'unspecified'], ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['fc00::1', 'unique local (private)'],
    ['fd00:ec2::254', 'unique local (private)'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::a00:1', 'private'], ['2002:7f00:1::', 'loopback'], ['[::1]', 'loopback'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(blockedReason(ip)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001:80b::200e'])('accepts public %s', (ip) => {
    expect(blockedReason(ip)).toBeUndefined();
  });

  // Each entry of IANA's special-purpose registries, an address inside, and where it matters the
  // first address just outside.
  it.each([
    ['192.31.196.1', 'AS112'], ['192.52.193.1', 'AMT relay'], ['192.175.48.1', 'AS112'], ['192.0.0.9', 'IETF protocol assignments'],
    ['198.19.255.255', 'benchmarking'], ['192.88.99.1', '6to4 relay'], ['240.0.0.1', 'reserved'],
    ['::ffff:0:7f00:1', 'loopback'], ['::ffff:0:10.1.2.3', 'private'], // IPv4-translated: judged by its IPv4 address
    ['64:ff9b:1::1', 'local-use IPv4/IPv6 translation'], ['64:ff9b:1:ffff::8.8.8.8', 'local-use IPv4/IPv6 translation'],
    ['2001::1', 'IETF protocol assignments (Teredo included)'], ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'IETF protocol assignments (Teredo included)'],
    ['2001:1::1', 'IETF protocol assignments (Teredo included)'], ['2001:2::1', 'IETF protocol assignments (Teredo included)'],
    ['2001:20::1', 'IETF protocol assignments (Teredo included)'], ['2001:1ff:ffff::1', 'IETF protocol assignments (Teredo included)'],
    ['100::1', 'discard-only'], ['100:0:0:1::1', 'dummy prefix'], ['2620:4f:8000::1', 'AS112'], ['3fff::1', 'documentation'], ['3fff:fff::1', 'documentation'],
    ['5f00::1', 'segment routing (SRv6) SIDs'], ['::7f00:1', 'IPv4-compatible (deprecated)'], ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
    ['4000::1', 'reserved (not global unicast)'], ['1::1', 'reserved (not global unicast)'],
    ['64:ff9b::7f00:1', 'loopback'], ['64:ff9b::169.254.169.254', 'link-local (cloud metadata)'], ['2002:c0a8:101::1', 'private'],
    ['::ffff:0.0.0.0', 'this network'], ['::ffff:ffff:ffff', 'broadcast'],
  ])('refuses registry entry %s (%s)', (ip, reason) => {
    expect(blockedReason(ip)).toBe(reason);
  });

  it.each([
    '2001:200::1', // just past 2001::/23
    '2620:4f:8001::1', '3fff:1000::1', '2001:db9::1',
    '64:ff9b::808:808', '64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:0:8.8.8.8', '::ffff:808:808', // embedded public IPv4
    '192.31.197.1', '192.175.49.1', '198.20.0.1',
  ])('accepts public %s', (ip) => {
    expect(blockedReason(ip)).toBeUndefined();
  });

  it('refuses what is not an IP address', () => {
    expect(blockedReason('localhost')).toBe('not an IP address');
  });

  it('expands IPv6 text to 16 bytes, trailing dotted quad included', () => {
    expect(parseV6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect(parseV6('2001:db8::1')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });
});
