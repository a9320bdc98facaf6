import { describe, expect, it } from 'vitest';
import {
  checkedLookup,
  type Resolve,
  refusedRangeOf,
} from '../../server/webhooks/address-policy.ts';

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
