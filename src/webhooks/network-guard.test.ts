import { describe, expect, it } from 'vitest';
import { blockedReason } from './network-guard.js';

describe('blockedReason', () => {
  it.each([
    ['0.0.0.0', 'unspecified address'],
    ['0.1.2.3', 'unspecified address'],
    ['10.0.0.1', 'private address'],
    ['10.255.255.255', 'private address'],
    ['100.64.0.1', 'CGNAT address'],
    ['100.127.255.254', 'CGNAT address'],
    ['127.0.0.1', 'loopback address'],
    ['127.255.0.9', 'loopback address'],
    ['169.254.169.254', 'link-local address'],
    ['172.16.0.1', 'private address'],
    ['172.31.255.255', 'private address'],
    ['192.0.0.8', 'reserved address'],
    ['192.0.2.10', 'reserved address'],
    ['192.88.99.1', 'reserved address'],
    ['192.168.1.1', 'private address'],
    ['198.18.0.1', 'reserved address'],
    ['198.19.255.255', 'reserved address'],
    ['198.51.100.7', 'reserved address'],
    ['203.0.113.99', 'reserved address'],
    ['224.0.0.1', 'multicast address'],
    ['239.255.255.250', 'multicast address'],
    ['240.0.0.1', 'reserved address'],
    ['255.255.255.255', 'reserved address'],
    ['::', 'unspecified address'],
    ['::1', 'loopback address'],
    ['0:0:0:0:0:0:0:1', 'loopback address'],
    ['fc00::1', 'private address'],
    ['fd12:3456:789a::1', 'private address'],
    ['fe80::1', 'link-local address'],
    ['fe80::1%eth0', 'link-local address'],
    ['febf::1', 'link-local address'],
    ['ff02::1', 'multicast address'],
    ['2001:db8::1', 'reserved address'],
    ['2001::1', 'reserved address'], // Teredo, inside 2001::/23
    ['2001:1ff::1', 'reserved address'],
    ['100::1', 'reserved address'],
    // IPv4 inside IPv6: judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback address'],
    ['::ffff:7f00:1', 'loopback address'],
    ['::FFFF:7F00:0001', 'loopback address'],
    ['::ffff:10.0.0.1', 'private address'],
    ['::ffff:a9fe:a9fe', 'link-local address'],
    ['::ffff:0:127.0.0.1', 'loopback address'],
    ['::127.0.0.1', 'loopback address'],
    ['::10.1.2.3', 'private address'],
    ['64:ff9b::127.0.0.1', 'loopback address'],
    ['64:ff9b::a00:1', 'private address'],
    ['64:ff9b:1::192.168.0.1', 'private address'],
    ['64:ff9b:1:ab00::', 'unspecified address'], // longer local-use prefix: fails closed
    ['2002:7f00:1::', 'loopback address'],
    ['2002:a9fe:a9fe::1', 'link-local address'],
    ['[::1]', 'loopback address'],
  ])('blocks %s (%s)', (ip, reason) => {
    expect(blockedReason(ip)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888', // outside 2001::/23
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b:1::1.1.1.1',
    '2002:808:808::1',
  ])('allows %s', (ip) => {
    expect(blockedReason(ip)).toBeNull();
  });

  it.each(['', 'localhost', '256.1.1.1', '1.2.3', '::g', '1::2::3', 'example.com', '127.0.0.1 '])(
    'calls %j an invalid address',
    (ip) => {
      expect(blockedReason(ip)).toBe('invalid address');
    },
  );
});
