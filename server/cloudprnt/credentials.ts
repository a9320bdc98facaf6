import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The HTTP basic credentials typed into a printer's CloudPRNT settings. The password is 24
 * random bytes (32 characters): long enough that, as with tokens (server/tokens/), only its
 * sha256 is kept, and a fast hash is safe.
 */
export const newUsername = (): string => `cp-${randomBytes(6).toString('hex')}`;
export const newPassword = (): string => randomBytes(24).toString('base64url');
/**
 * An Epson printer's ID and Password (Server Direct Print's WebConfig fields, the Digest user
 * and password): at most 30 letters, digits, `_`, `.` and `-` each, as the manual allows; the
 * password 22 random bytes (30 characters of base64url).
 */
export const newEpsonId = (): string => `sdp-${randomBytes(6).toString('hex')}`;
export const newEpsonPassword = (): string => randomBytes(22).toString('base64url');
export const hashPassword = (password: string): string => hash('sha256', password, 'hex');

/** The user and password of an `Authorization: Basic …` header (RFC 7617); undefined if none. */
export function basicCredentialsOf(
  header: string | undefined,
): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]{1,512})\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Whether `password` hashes to `stored`, compared in constant time. */
export function passwordMatches(password: string, stored: string): boolean {
  const given = Buffer.from(hashPassword(password), 'hex');
  const kept = Buffer.from(stored, 'hex');
  return given.length === kept.length && timingSafeEqual(given, kept);
}
