import { isIPv6 } from 'node:net';

/**
 * The IPv4 addresses an IPv6 address carries, so that the address rules of IPv4 apply to
 * them too: `https://[64:ff9b::a9fe:a9fe]/` reaches 169.254.169.254 through a NAT64
 * gateway, `https://[2002:a9fe:a9fe::]/` through a 6to4 relay. Each form by its RFC:
 *
 * | form | prefix | where the IPv4 is |
 * |---|---|---|
 * | IPv4-mapped (RFC 4291 §2.5.5.2) | `::ffff:0:0/96` | the last 32 bits |
 * | IPv4-translated (RFC 2765 §2.1) | `::ffff:0:0:0/96` | the last 32 bits |
 * | IPv4-compatible (RFC 4291 §2.5.5.1, deprecated) | `::/96` | the last 32 bits |
 * | NAT64 well-known prefix (RFC 6052 §2.1) | `64:ff9b::/96` | the last 32 bits |
 * | 6to4 (RFC 3056 §2) | `2002::/16` | bits 16–47 |
 * | Teredo (RFC 4380 §4) | `2001::/32` | the server: bits 32–63; the client: the last 32 bits, inverted |
 *
 * The local-use NAT64 prefix `64:ff9b:1::/48` is refused whole (address-policy.ts), since
 * where its IPv4 sits depends on the network's own prefix length.
 */
export interface EmbeddedIpv4 {
  ipv4: string;
  /** How the IPv6 address carries it, as people say it: `6to4`, `Teredo client`. */
  form: string;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped), or undefined. */
export function ipv6Groups(address: string): number[] | undefined {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  let text = bare.toLowerCase();
  // A dotted tail (`::ffff:10.0.0.1`) is two groups.
  const dotted = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/** The IPv4 addresses `address` embeds, by form; none for a plain IPv6 address. */
export function embeddedIpv4(address: string): EmbeddedIpv4[] {
  const g = ipv6Groups(address);
  if (g === undefined) return [];
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroTo = (n: number) => g.slice(0, n).every((group) => group === 0);
  const last = ipv4Of(g6, g7);
  if (zeroTo(5) && g5 === 0xffff) return [{ ipv4: last, form: 'IPv4-mapped' }];
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return [{ ipv4: last, form: 'IPv4-translated' }];
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, named as such.
  if (zeroTo(6) && (g6 !== 0 || g7 > 1)) return [{ ipv4: last, form: 'IPv4-compatible' }];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return [{ ipv4: last, form: 'NAT64' }];
  }
  if (g0 === 0x2002) return [{ ipv4: ipv4Of(g1, g2), form: '6to4' }];
  if (g0 === 0x2001 && g1 === 0) {
    return [
      { ipv4: ipv4Of(g2, g3), form: 'Teredo server' },
      { ipv4: ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff), form: 'Teredo client' },
    ];
  }
  return [];
}
