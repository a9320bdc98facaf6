import { describe, expect, it } from 'vitest';
import { subscribe, webhookShopOfSuite } from './helpers.ts';

/**
 * Secret rotation (docs/webhooks.md): for 24 hours after a rotation each delivery carries
 * a `v1,` signature by the new secret and one by the old, and the official library
 * verifies it with either secret alone; after that, only the new one signs.
 */
describe('webhook secret rotation', () => {
  const shop = webhookShopOfSuite();

  async function testEvent(endpointId: number) {
    const before = shop.receiver.received.length;
    await shop.server.request('POST', `/webhooks/${endpointId}/test`, { token: shop.token });
    await shop.receiver.waitFor(before + 1);
    return shop.receiver.received.at(-1)!;
  }

  it('signs with both secrets for 24 hours, each verifying on its own, then with the new one only', async () => {
    const endpoint = await subscribe(shop.server, shop.token, shop.receiver, ['stock.changed']);
    const oldSecret = endpoint.secret;
    const rotated = await shop.server.request('POST', `/webhooks/${endpoint.id}/rotate-secret`, {
      token: shop.token,
    });
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.data.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const expires = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(Math.abs(expires - (shop.server.clock.now().getTime() + 24 * 3_600_000))).toBeLessThan(
      2000,
    );
    const read = await shop.server.request('GET', `/webhooks/${endpoint.id}`, {
      token: shop.token,
    });
    expect(read.body.data.previous_secret_expires_at).toBe(
      rotated.body.data.previous_secret_expires_at,
    );

    shop.receiver.secrets = [oldSecret, newSecret];
    const during = await testEvent(endpoint.id);
    expect(during.signatures).toHaveLength(2);
    expect(during.signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    // Each secret alone verifies it: a receiver that still has the old one loses nothing.
    expect(during.verifiedBy).toEqual([0, 1]);

    shop.server.clock.advance(24 * 3_600_000 + 1000);
    const after = await testEvent(endpoint.id);
    expect(after.signatures).toHaveLength(1);
    expect(after.verifiedBy).toEqual([1]);
  });

  it('drops the oldest secret at once when rotated again within the 24 hours', async () => {
    const endpoint = await subscribe(shop.server, shop.token, shop.receiver, ['stock.changed']);
    const first = endpoint.secret;
    const second = (
      await shop.server.request('POST', `/webhooks/${endpoint.id}/rotate-secret`, {
        token: shop.token,
      })
    ).body.data.secret;
    const third = (
      await shop.server.request('POST', `/webhooks/${endpoint.id}/rotate-secret`, {
        token: shop.token,
      })
    ).body.data.secret;
    shop.receiver.secrets = [first, second, third];
    const got = await testEvent(endpoint.id);
    expect(got.signatures).toHaveLength(2);
    expect(got.verifiedBy).toEqual([1, 2]);
  });
});
