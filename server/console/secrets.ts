import { hash, randomBytes } from 'node:crypto';

/** A session cookie's value or a one-time password link's code: 32 random bytes. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

/** Only this is stored: a stolen database holds no usable cookie nor link. */
export const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');
