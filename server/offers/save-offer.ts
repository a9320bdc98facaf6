import { fromCents } from '../../shared/money.ts';
import {
  editableStatuses,
  type OfferInput,
  type OfferPatch,
  type OfferRecord,
  type OfferStatus,
  offerTransitions,
} from '../../shared/offers.ts';
import { Conflict, unknownReference } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { recordEvent } from '../webhooks/outbox.ts';
import { type PricedLine, priceOffer, totalsOf } from './price-offer.ts';
import { getOffer, getOfferRow, type OfferRow } from './read-offers.ts';

async function replaceLines(db: Db, offerId: number, lines: PricedLine[]) {
  await db.deleteFrom('offer_items').where('offer_id', '=', offerId).execute();
  await db
    .insertInto('offer_items')
    .values(lines.map((line, position) => ({ ...line, offer_id: offerId, position })))
    .execute();
}

export async function createOffer(
  storage: Storage,
  companyId: number,
  input: OfferInput,
  now: Date,
): Promise<OfferRecord> {
  return storage.transaction(async (trx) => {
    const priced = await priceOffer(trx, companyId, input, '', storage.dialect === 'postgres');
    const stamp = isoNow(now);
    const row = await trx
      .insertInto('offers')
      .values({
        company_id: companyId,
        customer_id: priced.customer_id,
        status: 'draft',
        notes: priced.notes,
        valid_until: priced.valid_until,
        subtotal_cents: priced.subtotal_cents,
        discount_cents: priced.discount_cents,
        total_cents: priced.total_cents,
        created_at: stamp,
        updated_at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceLines(trx, row.id, priced.lines);
    return getOffer(trx, companyId, row.id);
  });
}

const contentFields = ['customer_id', 'items', 'discount', 'notes', 'valid_until'] as const;

/**
 * PUT (whole offer) and PATCH (what is sent). A status change must be one that
 * `offerTransitions` allows, and the content may change only while the offer is a draft or
 * sent: anything else is 409. Lines sent are priced anew (unit prices default to the
 * products' prices of now); a PATCH without lines keeps the stored ones and their prices.
 */
export async function updateOffer(
  storage: Storage,
  companyId: number,
  id: number,
  input: OfferPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<OfferRecord> {
  return storage.transaction(async (trx) => {
    const existing = await getOfferRow(trx, companyId, id, {
      lock: storage.dialect === 'postgres',
    });
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
        storage.dialect === 'postgres',
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
    const offer = await getOffer(trx, companyId, id);
    if (status !== existing.status) {
      await recordEvent(storage, trx, companyId, 'offer.status_changed', offer.updated_at, () => ({
        ...offer,
        previous_status: existing.status,
      }));
    }
    return offer;
  });
}

async function assertCustomer(db: Db, companyId: number, customerId: number) {
  const found = await db
    .selectFrom('customers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  if (!found) throw unknownReference('customer_id');
}
