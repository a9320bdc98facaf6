import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks 1.0 signatures. A secret is `whsec_` + base64 of its key; a signature
 * is `v1,` + base64 of HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`), and
 * the `webhook-signature` header carries one per active secret, separated by spaces (two
 * for a day after a rotation). Signed with node:crypto's HMAC; the tests verify with the
 * official `standardwebhooks` package, never with this code.
 */

const prefix = 'whsec_';

/** A new secret: 32 random bytes (the specification asks for 24 to 64). */
export function newSecret(): string {
  return `${prefix}${randomBytes(32).toString('base64')}`;
}

/**
 * The HMAC key of a secret: the base64 after `whsec_`, decoded, as a KeyObject. Kept by the
 * caller: an HMAC keyed by a Buffer makes a key object each time (~77 µs a signature
 * against ~11 µs with a KeyObject made once, in `bench/webhooks.ts --cpu-prof`).
 */
export function signingKeyOf(secret: string): KeyObject {
  return createSecretKey(
    Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, 'base64'),
  );
}

/** The three headers of one attempt. */
export function signatureHeaders(
  eventId: string,
  timestampSeconds: number,
  body: string,
  keys: readonly KeyObject[],
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const signed = `${eventId}.${timestampSeconds}.${body}`;
  const signatures = keys.map(
    (key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
  );
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}
