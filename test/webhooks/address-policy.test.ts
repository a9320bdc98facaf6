import { describe, expect, it } from 'vitest';
import {
  checkedLookup,
  type Resolve,
  refusedAddressText,
  refusedRangeOf,
} from '../../server/webhooks/address-policy.ts';
import { embeddedIpv4, ipv6Groups } from '../../server/webhooks/embedded-ipv4.ts';

describe('addresses webhooks may not reach without --webhooks-allow-private', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local (private)'],
    ['fd12:3456::1', 'unique local (private)'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedRangeOf(address)).toBe(range);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '203.0.113.7',
  ])('allows %s', (address) => {
    expect(refusedRangeOf(address)).toBeUndefined();
  });
});

/**
 * IPv6 addresses that carry an IPv4 address, refused by the IPv4 address's range: each form
 * of embedded-ipv4.ts, in the shapes a URL may write it.
 */
describe('IPv6 forms that embed an IPv4 address', () => {
  // Teredo's client address is stored inverted: 127.0.0.1 is 80ff:fffe, 169.254.169.254 is
  // 5601:5601; 5db8:d822 is 93.184.216.34, a public server.
  it.each([
    ['64:ff9b::a9fe:a9fe', 'link-local', 'NAT64 for 169.254.169.254'],
    ['64:ff9b::169.254.169.254', 'link-local', 'NAT64 for 169.254.169.254'],
    ['64:FF9B::7F00:1', 'loopback', 'NAT64 for 127.0.0.1'],
    ['2002:a9fe:a9fe::', 'link-local', '6to4 for 169.254.169.254'],
    ['2002:7f00:1::1', 'loopback', '6to4 for 127.0.0.1'],
    ['2002:c0a8:101:1::5', 'private', '6to4 for 192.168.1.1'],
    ['::127.0.0.1', 'loopback', 'IPv4-compatible for 127.0.0.1'],
    ['::a00:1', 'private', 'IPv4-compatible for 10.0.0.1'],
    ['::ffff:a9fe:a9fe', 'link-local', undefined],
    ['::ffff:0:a00:1', 'private', 'IPv4-translated for 10.0.0.1'],
    ['2001:0:a00:1::', 'private', 'Teredo server for 10.0.0.1'],
    ['2001:0:5db8:d822:0:0:80ff:fffe', 'loopback', 'Teredo client for 127.0.0.1'],
    ['2001::5db8:d822:8000:0:5601:5601', 'link-local', 'Teredo client for 169.254.169.254'],
    ['64:ff9b::a9fe:a9fe%eth0', 'link-local', 'NAT64 for 169.254.169.254'],
  ])('refuses %s (%s)', (address, range, form) => {
    expect(refusedRangeOf(address)).toBe(range);
    if (form) expect(refusedAddressText(address)).toBe(`${address}, ${form}`);
  });

  it.each([
    '64:ff9b::5db8:d822',
    '2002:5db8:d822::1',
    '2001:0:5db8:d822::a247:f7f7',
    '2001:db8::1',
    '2001:4860:4860::8888',
  ])('allows %s, whose IPv4 (if any) is public', (address) => {
    expect(refusedRangeOf(address)).toBeUndefined();
  });

  it('reads every group, whatever the notation', () => {
    expect(ipv6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('2001:db8::1')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('::ffff:10.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1]);
    expect(ipv6Groups('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('10.0.0.1')).toBeUndefined();
    expect(embeddedIpv4('2606:4700::1111')).toEqual([]);
  });
});

describe('the connection-time lookup', () => {
  const resolving =
    (...addresses: [string, 4 | 6][]): Resolve =>
    async () =>
      addresses.map(([address, family]) => ({ address, family }));

  function lookUp(resolve: Resolve, options: { all?: boolean; family?: number }) {
    return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>(
      (done) =>
        checkedLookup(resolve)('hooks.example.test', options as never, (error, address, family) =>
          done({ error, address, family }),
        ),
    );
  }

  it('hands the socket exactly the addresses it checked', async () => {
    const resolve = resolving(['93.184.216.34', 4], ['2606:4700::1111', 6]);
    expect(await lookUp(resolve, { all: true })).toMatchObject({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    });
    expect(await lookUp(resolve, { family: 6 })).toMatchObject({
      address: '2606:4700::1111',
      family: 6,
    });
  });

  it('refuses the name when any address it resolves to is refused', async () => {
    const { error } = await lookUp(resolving(['93.184.216.34', 4], ['10.0.0.8', 4]), { all: true });
    expect(error?.message).toBe(
      'hooks.example.test resolved to a private address (10.0.0.8); refused',
    );
    expect(error?.code).toBe('ERR_WEBHOOK_ADDRESS_REFUSED');
  });

  it('passes a resolver failure on', async () => {
    const failing: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await lookUp(failing, {})).error?.code).toBe('ENOTFOUND');
  });
});
