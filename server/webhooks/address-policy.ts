import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { WebhookPolicy } from '../config.ts';
import { type EmbeddedIpv4, embeddedIpv4 } from './embedded-ipv4.ts';

/**
 * Which URLs a webhook may be sent to. Without `--webhooks-allow-private`, an address in
 * these ranges is refused: the server must not be made to call into its own network (the
 * database, a cloud metadata service, an admin page on localhost). An IPv6 address that
 * carries an IPv4 one (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a9fe:a9fe`, 6to4, Teredo) is
 * refused by the IPv4 address's range too (embedded-ipv4.ts).
 */
const ranges: [address: string, prefix: number, family: 'ipv4' | 'ipv6', name: string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'protocol assignments'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['64:ff9b:1::', 48, 'ipv6', 'local NAT64'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const blocked = ranges.map(([address, prefix, family, name]) => {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return { list, name };
});

/** The kind of range an address is in by itself, or undefined. */
function rangeOf(address: string): string | undefined {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return blocked.find(({ list }) => list.check(address, family))?.name;
}

/**
 * Why an address is refused: its range, and for an IPv6 address that carries an IPv4 one
 * (NAT64, 6to4, Teredo, IPv4-compatible or -mapped: embedded-ipv4.ts), the IPv4 address
 * whose range refuses it. Undefined when it may be called.
 */
export function refusedAddress(
  address: string,
): { range: string; embedded?: EmbeddedIpv4 } | undefined {
  const own = rangeOf(address);
  if (own) return { range: own };
  for (const embedded of embeddedIpv4(address)) {
    const range = rangeOf(embedded.ipv4);
    if (range) return { range, embedded };
  }
  return undefined;
}

/** The kind of range a refused address is in, or undefined when it may be called. */
export const refusedRangeOf = (address: string): string | undefined =>
  refusedAddress(address)?.range;

/** `10.0.0.8`, or `2002:a00:8:: (6to4 for 10.0.0.8)`: the address as a refusal names it. */
export function refusedAddressText(address: string): string {
  const embedded = refusedAddress(address)?.embedded;
  return embedded ? `${address}, ${embedded.form} for ${embedded.ipv4}` : address;
}

/** Resolves a host name to every address it has (the operating system's resolver). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** `[::1]` in a URL is `::1` to the resolver. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why the URL may not receive webhooks under `policy`, or undefined when it may. Every
 * address the host resolves to must be allowed: a name with one private address among
 * public ones is refused, since the connection could go to any of them.
 */
export async function refusalOf(
  url: URL,
  policy: WebhookPolicy,
  resolve: Resolve = systemResolve,
): Promise<string | undefined> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return 'The url field must be an https:// URL.';
  }
  if (url.protocol === 'http:' && !policy.allowHttp) {
    return 'The url field must be an https:// URL (this server does not send webhooks over plain http).';
  }
  if (url.username || url.password) {
    return 'The url field must not contain a user name or password.';
  }
  if (policy.allowPrivate) return undefined;
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((entry) => entry.address);
    } catch {
      return `The url field's host ${host} could not be resolved.`;
    }
  }
  for (const address of addresses) {
    const range = refusedRangeOf(address);
    if (range) {
      return `The url field points to a ${range} address (${refusedAddressText(address)}); this server sends webhooks to public addresses only.`;
    }
  }
  return undefined;
}

/**
 * The resolver a delivery's connection uses (undici's `connect.lookup`, handed on to
 * `net.connect`): it resolves, refuses the addresses `refusedRangeOf` names, and hands the
 * socket exactly the addresses it checked, so a name that resolved to a public address
 * when the endpoint was created and to a private one now (DNS rebinding) is refused at
 * connection time. A host that is an IP literal never reaches a lookup: the dispatcher
 * checks it before sending (`refusalOf`).
 */
export function checkedLookup(resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = addresses.filter(
          (entry) => !options.family || entry.family === options.family,
        );
        const refused = wanted.find((entry) => refusedRangeOf(entry.address));
        if (refused || wanted.length === 0) {
          const error = Object.assign(
            new Error(
              refused
                ? `${hostname} resolved to a ${refusedRangeOf(refused.address)} address (${refusedAddressText(refused.address)}); refused`
                : `${hostname} has no address of the family asked for`,
            ),
            { code: refused ? 'ERR_WEBHOOK_ADDRESS_REFUSED' : 'ENOTFOUND' },
          );
          callback(error, '', 0);
          return;
        }
        if (options.all) callback(null, wanted as never, 0);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
