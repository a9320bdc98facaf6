import { hash, randomBytes } from 'node:crypto';

/** `sd_` then 32 random bytes: long enough that only a hash needs to be kept. */
export function newTokenSecret(): string {
  return `sd_${randomBytes(32).toString('base64url')}`;
}

/** Runs on every request: the one-shot `hash` costs a quarter of a `createHash` object's. */
export function hashToken(secret: string): string {
  return hash('sha256', secret, 'hex');
}
