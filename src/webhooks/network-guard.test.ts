import { describe, expect, it } from 'vitest';
import { blockedReason } from './network-guard.js';

describe('blockedReason', () => {
  it.each([
    ['127.0.0.1', 'loopback address'],
    ['127.255.255.254', 'loopback address'],
    ['10.0.0.5', 'private address'],
    ['172.16.0.1', 'private address'],
    ['172.31.255.255', 'private address'],
    ['192.168.1.10', 'private address'],
    ['169.254.169.254', 'link-local address'],
    ['100.64.0.1', 'CGNAT address'],
    ['100.127.255.255', 'CGNAT address'],
    ['0.0.0.0', 'unspecified address'],
    ['192.0.2.1', 'reserved address'],
    ['198.18.0.1', 'reserved address'],
    ['224.0.0.1', 'multicast address'],
    ['255.255.255.255', 'reserved address'],
    ['::1', 'loopback address'],
    ['::', 'unspecified address'],
    ['fe80::1', 'link-local address'],
    ['fe80::1%eth0', 'link-local address'],
    ['fd12:3456::1', 'private address'],
    ['fc00::1', 'private address'],
    ['ff02::1', 'multicast address'],
    ['2001:db8::1', 'reserved address'],
    ['::ffff:127.0.0.1', 'loopback address'],
    ['::ffff:7f00:1', 'loopback address'],
    ['::ffff:10.0.0.1', 'private address'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local address'],
    ['::127.0.0.1', 'loopback address'],
    ['64:ff9b::10.1.2.3', 'private address'],
    ['2002:c0a8:0101::1', 'private address'],
    ['not an address', 'invalid address'],
    ['1.2.3', 'invalid address'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(blockedReason(ip)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('allows the public address %s', (ip) => {
    expect(blockedReason(ip)).toBeNull();
  });
});
