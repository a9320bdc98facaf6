import { fromCents } from '../../shared/money.ts';
import {
  editableStatuses,
  type OfferPatch,
  type OfferRecord,
  type OfferStatus,
  offerTransitions,
} from '../../shared/offers.ts';
import { customerExists } from '../customers/index.ts';
import { Conflict, unknownReference } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import type { OutboxDeps } from '../webhooks/index.ts';
import { replaceLines } from './offer-lines.ts';
import { priceOffer, totalsOf } from './price-offer.ts';
import { readOffer, readOfferRow } from './read-offer.ts';
import type { OfferRow } from './records.ts';

const contentFields = ['customer_id', 'items', 'discount', 'notes', 'valid_until'] as const;

/**
 * PUT (whole offer) and PATCH (what is sent). A status change must be one that
 * `offerTransitions` allows, and the content may change only while the offer is a draft or
 * sent: anything else is 409. Lines sent are priced anew (unit prices default to the
 * products' prices of now); a PATCH without lines keeps the stored ones and their prices.
 */
export async function updateOffer(
  { storage, outbox }: OutboxDeps,
  db: Db,
  companyId: number,
  id: number,
  input: OfferPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<OfferRecord> {
  return storage.transaction(db, async (trx) => {
    const existing = await readOfferRow(trx, companyId, id, { lock: true });
    const status: OfferStatus = input.status ?? existing.status;
    if (status !== existing.status && !offerTransitions[existing.status].includes(status)) {
      throw new Conflict(`An offer cannot go from ${existing.status} to ${status}.`);
    }
    const changesContent = contentFields.some((field) => input[field] !== undefined);
    if ((changesContent || mode === 'replace') && !editableStatuses.includes(existing.status)) {
      throw new Conflict(`An offer that is ${existing.status} cannot be changed.`);
    }
    const columns: Partial<OfferRow> = { status, updated_at: isoNow(now) };
    if (input.items || mode === 'replace') {
      const priced = await priceOffer(
        trx,
        companyId,
        {
          customer_id: input.customer_id ?? existing.customer_id,
          items: input.items!,
          discount:
            input.discount ??
            (mode === 'patch' ? fromCents(Number(existing.discount_cents)) : undefined),
        },
        '',
        true,
      );
      await replaceLines(trx, id, priced.lines);
      Object.assign(columns, {
        customer_id: priced.customer_id,
        subtotal_cents: priced.subtotal_cents,
        discount_cents: priced.discount_cents,
        total_cents: priced.total_cents,
      });
    } else {
      if (input.customer_id !== undefined) {
        await assertCustomer(trx, companyId, input.customer_id);
        columns.customer_id = input.customer_id;
      }
      if (input.discount !== undefined) {
        const totals = totalsOf(
          [{ total_cents: Number(existing.subtotal_cents) }],
          input.discount,
          '',
        );
        columns.discount_cents = totals.discount_cents;
        columns.total_cents = totals.total_cents;
      }
    }
    if (input.notes !== undefined || mode === 'replace') columns.notes = input.notes ?? null;
    if (input.valid_until !== undefined || mode === 'replace') {
      columns.valid_until = input.valid_until ?? null;
    }
    await trx.updateTable('offers').set(columns).where('id', '=', id).execute();
    const offer = await readOffer(trx, companyId, id);
    if (status !== existing.status) {
      await outbox.record(trx, {
        companyId,
        type: 'offer.status_changed',
        at: offer.updated_at,
        data: () => ({ ...offer, previous_status: existing.status }),
      });
    }
    return offer;
  });
}

async function assertCustomer(db: Db, companyId: number, customerId: number) {
  if (!(await customerExists(db, companyId, customerId))) throw unknownReference('customer_id');
}
