import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (the endpoints' signing secrets): AES-256-GCM under the server's secret
 * key, so that a database dump alone does not reveal them. A stored value is
 * `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts); the key id (the first 8 bytes of
 * the key's SHA-256) tells which key sealed it, so a server started with another key says
 * so instead of failing to authenticate. The company id is the additional data: a sealed
 * secret copied to another company's row does not open.
 */
export class SecretBox {
  private readonly key: Buffer;
  /** Names the key without revealing it (logs, error messages). */
  readonly keyId: string;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
    this.key = key;
    this.keyId = createHash('sha256').update(key).digest().subarray(0, 8).toString('base64url');
  }

  seal(plain: string, companyId: number): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aadOf(companyId));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      'v1',
      this.keyId,
      iv.toString('base64url'),
      sealed.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  open(stored: string, companyId: number): string {
    const [version, keyId, iv, sealed, tag] = stored.split('.');
    if (version !== 'v1' || !iv || sealed === undefined || !tag) {
      throw new Error('the stored secret is not in a known format');
    }
    if (keyId !== this.keyId) {
      throw new Error(
        `the secret was sealed with key ${keyId}, and this server has key ${this.keyId}: every instance needs the same SHOPDESK_SECRET_KEY`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(aadOf(companyId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}

const aadOf = (companyId: number) => Buffer.from(`shopdesk webhook secret, company ${companyId}`);
