import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a webhook may not be delivered to (PRODUCT part 5): anything that is not a
 * public unicast address, so that a business cannot use its endpoint URL to reach the service's
 * own host or network (SSRF). The sender checks the address it actually connects to.
 */

type Family = 'ipv4' | 'ipv6';

function rules(family: Family, entries: [reason: string, subnets: string[]][]): [string, BlockList][] {
  return entries.map(([reason, subnets]) => {
    const list = new BlockList();
    for (const subnet of subnets) {
      const [network = '', prefix = ''] = subnet.split('/');
      list.addSubnet(network, Number(prefix), family);
    }
    return [reason, list];
  });
}

const IPV4 = rules('ipv4', [
  ['unspecified address', ['0.0.0.0/8']],
  ['loopback address', ['127.0.0.0/8']],
  ['private address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['CGNAT address', ['100.64.0.0/10']],
  ['link-local address', ['169.254.0.0/16']],
  ['multicast address', ['224.0.0.0/4']],
  [
    'reserved address',
    [
      '192.0.0.0/24', // IETF protocol assignments
      '192.0.2.0/24', // TEST-NET-1
      '192.88.99.0/24', // 6to4 relay anycast
      '198.18.0.0/15', // benchmarking
      '198.51.100.0/24', // TEST-NET-2
      '203.0.113.0/24', // TEST-NET-3
      '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
    ],
  ],
]);

const IPV6 = rules('ipv6', [
  ['unspecified address', ['::/128']],
  ['loopback address', ['::1/128']],
  ['private address', ['fc00::/7', 'fec0::/10']], // unique local, deprecated site-local
  ['link-local address', ['fe80::/10']],
  ['multicast address', ['ff00::/8']],
  [
    'reserved address',
    [
      '2001:db8::/32', // documentation
      '2001::/23', // IETF protocol assignments (Teredo, ORCHID, ...)
      '100::/64', // discard-only
    ],
  ],
]);

/** The eight 16-bit groups of a valid IPv6 address (zone id already removed). */
function hextets(ip: string): number[] {
  let text = ip;
  const dotted = text.lastIndexOf(':') + 1;
  if (text.includes('.', dotted)) {
    // a trailing dotted quad stands for the last two groups
    const [a = 0, b = 0, c = 0, d = 0] = text.slice(dotted).split('.').map(Number);
    text = `${text.slice(0, dotted)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const quad = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the forms that end up at an
 * IPv4 host: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), NAT64 (64:ff9b::/96, and the local-use 64:ff9b:1::/48 read as a /96 prefix) and
 * 6to4 (2002:AABB:CCDD::/48). Such an address is as dangerous as the IPv4 address inside it.
 */
function embeddedIPv4(h: number[]): string | null {
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  const zeroUpTo = (n: number) => h.slice(0, n).every((group) => group === 0);
  if (zeroUpTo(5) && (h5 === 0xffff || h5 === 0)) {
    // ::/128 and ::1/128 are IPv6's own unspecified and loopback addresses, judged as such
    if (h5 === 0 && h6 === 0 && h7 <= 1) return null;
    return quad(h6, h7);
  }
  if (zeroUpTo(4) && h4 === 0xffff && h5 === 0) return quad(h6, h7);
  if (h0 === 0x64 && h1 === 0xff9b && (h2 === 1 || (h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0))) {
    // Within the local-use /48 the operator picks the prefix length; reading the last 32 bits
    // fails closed for the longer forms (their tail is zero: 0.0.0.0, blocked).
    return quad(h6, h7);
  }
  if (h0 === 0x2002) return quad(h1, h2);
  return null;
}

/**
 * Why `ip` must not be a webhook target ('loopback address', 'private address', ...), or null
 * when it is an ordinary public address.
 */
export function blockedReason(ip: string): string | null {
  if (isIPv4(ip)) {
    for (const [reason, list] of IPV4) if (list.check(ip, 'ipv4')) return reason;
    return null;
  }
  const address = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!isIPv6(address)) return 'invalid address';
  const v4 = embeddedIPv4(hextets(address));
  if (v4 !== null) return blockedReason(v4);
  for (const [reason, list] of IPV6) if (list.check(address, 'ipv6')) return reason;
  return null;
}
