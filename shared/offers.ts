import { z } from 'zod';
import { idParam, idSchema, pageQuery, queryInteger, recordId, timestamp } from './http.ts';
import { hasAtMostTwoDecimals, moneySchema } from './money.ts';
import { positiveQuantitySchema } from './quantity.ts';

/** Contracts of offers (quotations) and quotes (an offer computed without saving it). */

export const offerStatuses = ['draft', 'sent', 'accepted', 'rejected', 'expired'] as const;
export type OfferStatus = (typeof offerStatuses)[number];

/**
 * The status changes PATCH and PUT allow (anything else is 409). A sent offer may go back
 * to draft to be revised; accepted, rejected and expired are final.
 */
export const offerTransitions: Record<OfferStatus, readonly OfferStatus[]> = {
  draft: ['sent', 'expired'],
  sent: ['draft', 'accepted', 'rejected', 'expired'],
  accepted: [],
  rejected: [],
  expired: [],
};

/** Only these statuses let the lines, customer, discount, notes and validity change. */
export const editableStatuses: readonly OfferStatus[] = ['draft', 'sent'];

export const maxOfferItems = 500;
export const maxBulkQuotes = 100;

export const offerItemInput = z.object({
  product_id: idSchema,
  quantity: positiveQuantitySchema,
  unit_price: moneySchema.optional(),
  discount_percent: z
    .number()
    .min(0)
    .max(100)
    .refine(hasAtMostTwoDecimals, 'The :attribute field must have at most 2 decimal places.')
    .meta({ multipleOf: 0.01 })
    .optional(),
});
export type OfferItemInput = z.infer<typeof offerItemInput>;

export const offerFields = {
  customer_id: idSchema,
  items: z.array(offerItemInput).min(1).max(maxOfferItems),
  /** An amount of money off the subtotal (not a percentage); at most the subtotal. */
  discount: moneySchema.optional(),
  notes: z.string().max(5000).nullish(),
  /** A calendar date, `YYYY-MM-DD`. */
  valid_until: z.iso.date().nullish(),
};

/** POST /offers, POST /offers/quote: the offer is created as a draft. */
export const offerInput = z.object(offerFields).meta({
  examples: [
    {
      customer_id: 1,
      items: [{ product_id: 1, quantity: 2, discount_percent: 10 }],
      notes: 'Delivery on Friday',
      valid_until: '2026-12-31',
    },
  ],
});
export type OfferInput = z.infer<typeof offerInput>;

/** PUT: the whole offer, optionally with a status change. */
export const offerReplace = z.object({ ...offerFields, status: z.enum(offerStatuses).optional() });
export type OfferReplace = z.infer<typeof offerReplace>;

/** PATCH: only what is sent changes. */
export const offerPatch = offerReplace.partial();
export type OfferPatch = z.infer<typeof offerPatch>;

export const quoteBulkInput = z.object({
  offers: z.array(offerInput).min(1).max(maxBulkQuotes),
});

export const offerItemRecord = z.object({
  product_id: recordId.nullable(),
  product_code: z.string(),
  product_name: z.string(),
  quantity: z.number(),
  unit_price: z.number(),
  discount_percent: z.number(),
  /** unit_price × quantity × (1 − discount_percent / 100), rounded half-up to cents. */
  total: z.number(),
});

export const quoteWarning = z.object({
  code: z.literal('insufficient_stock'),
  product_id: recordId,
  requested: z.number(),
  available: z.number(),
  message: z.string(),
});
export type QuoteWarning = z.infer<typeof quoteWarning>;

export const quoteRecord = z.object({
  customer_id: recordId,
  items: z.array(offerItemRecord),
  subtotal: z.number(),
  discount: z.number(),
  total: z.number(),
  notes: z.string().nullable(),
  valid_until: z.string().nullable(),
  /** Stock-managed products whose stock (all warehouses) is short of the quantity asked. */
  warnings: z.array(quoteWarning),
});
export type QuoteRecord = z.infer<typeof quoteRecord>;

export const offerRecord = z.object({
  id: recordId,
  status: z.enum(offerStatuses),
  customer_id: recordId,
  items: z.array(offerItemRecord.extend({ id: recordId })),
  subtotal: z.number(),
  discount: z.number(),
  total: z.number(),
  notes: z.string().nullable(),
  valid_until: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type OfferRecord = z.infer<typeof offerRecord>;

export const offerListQuery = pageQuery.extend({
  status: z.enum(offerStatuses).optional(),
  customer_id: queryInteger(idSchema).optional(),
});
export type OfferListQuery = z.infer<typeof offerListQuery>;

export const offerParams = z.object({ offer: idParam });
