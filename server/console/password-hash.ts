import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords are kept as scrypt hashes (node:crypto, no dependency): `scrypt$N$r$p$salt$hash`
 * with the parameters in the text, so that they can be raised later and old hashes still
 * verify. N=2^15, r=8, p=1 (OWASP's floor for scrypt) take ~32 MiB and ~60 ms here: a
 * guess costs the attacker as much, and sign-in is rate limited besides.
 */
const cost = { N: 2 ** 15, r: 8, p: 1 };
const keyLength = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      keyLength,
      { ...options, maxmem: 128 * options.N! * options.r! * 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** A password's hash at the server's cost (`cost`), or at the one given (the tests' users). */
export async function hashPassword(
  password: string,
  { N, r, p }: { N: number; r: number; p: number } = cost,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * Spent on a sign-in for an unknown address or an account without a password, so that the
 * answer takes as long as for a wrong password and does not tell which addresses exist.
 */
let decoy: Promise<string> | undefined;
export async function spendVerification(password: string): Promise<void> {
  decoy ??= hashPassword('decoy password, never matches');
  await verifyPassword(password, await decoy);
}
