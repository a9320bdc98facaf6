import type { KeyObject } from 'node:crypto';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import type { SecretBox } from './secret-box.ts';
import { signingKeyOf } from './signing.ts';

/** An endpoint as an attempt needs it. */
export interface DeliveryTarget {
  id: number;
  companyId: number;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  /** Whether it was in a run of failures when read: a success then has something to end. */
  failing: boolean;
}

/**
 * The endpoints of a pick, and their signing keys. Opening a sealed secret is cheap but
 * not free; the keys are kept by sealed value, so a rotation (a new sealed value) needs
 * no invalidation.
 */
export class SigningKeys {
  private readonly storage: Storage;
  private readonly box: SecretBox;
  private readonly opened = new Map<string, KeyObject>();

  constructor(storage: Storage, box: SecretBox) {
    this.storage = storage;
    this.box = box;
  }

  async targetsOf(endpointIds: readonly number[]): Promise<Map<number, DeliveryTarget>> {
    const rows = await this.storage.db
      .selectFrom('webhook_endpoints')
      .select([
        'id',
        'company_id',
        'url',
        'enabled',
        'secret',
        'previous_secret',
        'previous_secret_expires_at',
        'failing_since',
      ])
      .where('id', 'in', [...new Set(endpointIds)])
      .execute();
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          companyId: row.company_id,
          url: row.url,
          enabled: Boolean(row.enabled),
          secret: row.secret,
          previousSecret: row.previous_secret,
          previousSecretExpiresAt: row.previous_secret_expires_at,
          failing: row.failing_since !== null,
        },
      ]),
    );
  }

  /**
   * The keys that sign now: the secret's, and the previous one's until it expires. A
   * previous secret that no longer opens (sealed under a key since replaced) is left out:
   * rotating is how an endpoint recovers from a lost key. The current one must open.
   */
  keysOf(target: DeliveryTarget, now: Date): KeyObject[] {
    const keys = [this.open(target.secret, target.companyId)];
    if (
      target.previousSecret !== null &&
      target.previousSecretExpiresAt !== null &&
      isoNow(now) < target.previousSecretExpiresAt
    ) {
      try {
        keys.push(this.open(target.previousSecret, target.companyId));
      } catch {
        // Unreadable: the new secret alone signs.
      }
    }
    return keys;
  }

  private open(sealed: string, companyId: number): KeyObject {
    const cacheKey = `${companyId}:${sealed}`;
    let key = this.opened.get(cacheKey);
    if (!key) {
      key = signingKeyOf(this.box.open(sealed, companyId));
      if (this.opened.size >= 1000) this.opened.clear();
      this.opened.set(cacheKey, key);
    }
    return key;
  }
}
