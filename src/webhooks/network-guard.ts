import { BlockList, isIP } from 'node:net';

/**
 * SSRF protection (PRODUCT part 5): the address ranges a webhook must never reach, unless
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS is set. The sender checks the address it actually connects to
 * (after DNS), so a name that resolves, or re-resolves, to an internal address is refused too.
 */
const RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified address'],
  ['10.0.0.0', 8, 'ipv4', 'private address'],
  ['100.64.0.0', 10, 'ipv4', 'CGNAT address'],
  ['127.0.0.0', 8, 'ipv4', 'loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'link-local address'],
  ['172.16.0.0', 12, 'ipv4', 'private address'],
  ['192.0.0.0', 24, 'ipv4', 'reserved address'],
  ['192.0.2.0', 24, 'ipv4', 'reserved address'],
  ['192.88.99.0', 24, 'ipv4', 'reserved address'],
  ['192.168.0.0', 16, 'ipv4', 'private address'],
  ['198.18.0.0', 15, 'ipv4', 'reserved address'],
  ['198.51.100.0', 24, 'ipv4', 'reserved address'],
  ['203.0.113.0', 24, 'ipv4', 'reserved address'],
  ['224.0.0.0', 4, 'ipv4', 'multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'reserved address'],
  ['::', 128, 'ipv6', 'unspecified address'],
  ['::1', 128, 'ipv6', 'loopback address'],
  ['100::', 64, 'ipv6', 'reserved address'],
  ['2001::', 23, 'ipv6', 'reserved address'],
  ['2001:db8::', 32, 'ipv6', 'reserved address'],
  ['fc00::', 7, 'ipv6', 'private address'],
  ['fe80::', 10, 'ipv6', 'link-local address'],
  ['fec0::', 10, 'ipv6', 'reserved address'],
  ['ff00::', 8, 'ipv6', 'multicast address'],
];

const lists = RANGES.map(([net, prefix, family, reason]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { list, family, reason };
});

/** Expands an IPv6 address to its 8 groups (as numbers); null if it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // a trailing dotted IPv4 (::ffff:1.2.3.4) becomes two groups
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const parts = dotted[1].split('.').map(Number);
    if (parts.some((p) => p > 255)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = parts;
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function v4(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeros = (...gs: (number | undefined)[]) => gs.every((g) => g === 0);
  if (zeros(g0, g1, g2, g3, g4) && (g5 === 0xffff || g5 === 0)) {
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated); :: and ::1 are judged as IPv6
    if (g5 === 0xffff || g6 !== 0) return v4(g6, g7);
  }
  if (g0 === 0x64 && g1 === 0xff9b && (zeros(g2, g3, g4, g5) || g2 === 1)) return v4(g6, g7); // NAT64
  if (g0 === 0x2002) return v4(g1 ?? 0, g2 ?? 0); // 6to4
  return null;
}

/** Why `ip` must not be a webhook target, or null when it may be. */
export function blockedReason(ip: string): string | null {
  const family = isIP(ip.split('%')[0] ?? '');
  if (family === 4) {
    for (const { list, family: f, reason } of lists) if (f === 'ipv4' && list.check(ip, 'ipv4')) return reason;
    return null;
  }
  if (family !== 6) return 'invalid address';
  const groups = ipv6Groups(ip);
  if (!groups) return 'invalid address';
  const inner = embeddedIpv4(groups);
  if (inner) return blockedReason(inner);
  const normal = groups.map((g) => g.toString(16)).join(':');
  for (const { list, family: f, reason } of lists) if (f === 'ipv6' && list.check(normal, 'ipv6')) return reason;
  return null;
}
