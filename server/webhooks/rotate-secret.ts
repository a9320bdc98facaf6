import type { RotatedSecretRecord } from '../../shared/webhooks.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import type { EndpointDeps } from './endpoint-input.ts';
import { readEndpointRow } from './read-endpoint.ts';
import { newSecret } from './signing.ts';

/** How long the replaced secret keeps signing beside the new one. */
export const previousSecretLifetimeMs = 24 * 3_600_000;

/**
 * A new secret, answered this once. The replaced one keeps signing for 24 hours (each
 * delivery carries two `v1,` signatures), so receivers can switch without losing an event.
 * A second rotation within those 24 hours drops the oldest secret at once.
 */
export async function rotateSecret(
  deps: EndpointDeps,
  db: Db,
  companyId: number,
  id: number,
  now: Date,
): Promise<RotatedSecretRecord> {
  const secret = newSecret();
  const stamp = isoNow(now);
  const expires = isoNow(new Date(now.getTime() + previousSecretLifetimeMs));
  const { storage } = deps;
  await storage.transaction(db, async (trx) => {
    const existing = await readEndpointRow(trx, companyId, id, { lock: true });
    await trx
      .updateTable('webhook_endpoints')
      .set({
        secret: deps.box.seal(secret, companyId),
        previous_secret: existing.secret,
        previous_secret_expires_at: expires,
        updated_at: stamp,
      })
      .where('id', '=', id)
      .execute();
  });
  return { secret, previous_secret_expires_at: expires };
}
