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

  it('refuses what is not an IP address', () => {
    expect(blockedReason('localhost')).toBe('not an IP address');
  });

  it('expands IPv6 text to 16 bytes, trailing dotted quad included', () => {
    expect(parseV6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect(parseV6('2001:db8::1')).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });
});
