import { z } from 'zod';
import { idParam, idSchema, pageQuery, recordId, timestamp } from './http.ts';
import { moneySchema } from './money.ts';
import { positiveQuantitySchema } from './quantity.ts';

/** Contracts of products and services (docs/reference.md: the product payload). */

export const productTypes = ['SIMPLE', 'ASSEMBLY', 'VARIATION'] as const;
export const productConditions = ['NOT_SPECIFIED', 'NEW', 'USED'] as const;
export type ProductType = (typeof productTypes)[number];
export type ProductCondition = (typeof productConditions)[number];

export const maxImagesPerProduct = 50;
export const maxComponentsPerAssembly = 100;
export const maxBulkItems = 1000;

export const imageInput = z.object({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  alt_text: z.string().max(255).nullish(),
});
export type ImageInput = z.infer<typeof imageInput>;

/**
 * What an ASSEMBLY (a kit) is made of: other products of the company, each with the
 * quantity one kit uses. No product may contain itself, even through another kit.
 */
export const assemblyInput = z.object({
  components: z
    .array(z.object({ product_id: idSchema, quantity: positiveQuantitySchema }))
    .min(1)
    .max(maxComponentsPerAssembly)
    .superRefine((components, ctx) => {
      const seen = new Set<number>();
      components.forEach((component, index) => {
        if (seen.has(component.product_id)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'product_id'],
            message: 'The :attribute field has a duplicate value.',
          });
        }
        seen.add(component.product_id);
      });
    }),
});
export type AssemblyInput = z.infer<typeof assemblyInput>;

const distinctIds = (ids: number[], ctx: z.RefinementCtx) => {
  const seen = new Set<number>();
  ids.forEach((id, index) => {
    if (seen.has(id)) {
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: 'The :attribute field has a duplicate value.',
      });
    }
    seen.add(id);
  });
};

export const productFields = {
  manage_stock: z.boolean(),
  code: z.string().min(3).max(100),
  name: z.string().min(3).max(255),
  price: moneySchema,
  unit: z.string().min(1).max(10),
  type: z.enum(productTypes).optional(),
  condition: z.enum(productConditions).optional(),
  ncm: z
    .string()
    .regex(/^\d*$/, 'The :attribute field must contain only digits.')
    .refine(
      (value) => value.length >= 2 && value.length <= 8,
      'The :attribute field must be between 2 and 8 digits.',
    )
    .meta({ pattern: '^[0-9]{2,8}$' })
    .nullish(),
  categories: z
    .array(idSchema)
    .max(100)
    .superRefine(distinctIds)
    .meta({ uniqueItems: true })
    .optional(),
  images: z.array(imageInput).max(maxImagesPerProduct).optional(),
  assembly: assemblyInput.nullish(),
};

const productObject = z.object(productFields);

/** `assembly` is required for ASSEMBLY products and prohibited for the other types. */
export function checkAssemblyRule(
  type: ProductType,
  assembly: AssemblyInput | null | undefined,
  ctx: z.RefinementCtx,
): void {
  if (type === 'ASSEMBLY' && !assembly) {
    ctx.addIssue({
      code: 'custom',
      path: ['assembly'],
      message: 'The :attribute field is required when type is ASSEMBLY.',
    });
  }
  if (type !== 'ASSEMBLY' && assembly) {
    ctx.addIssue({
      code: 'custom',
      path: ['assembly'],
      message: 'The :attribute field is prohibited unless type is ASSEMBLY.',
    });
  }
}

/** POST and PUT: the whole record (`type` defaults to SIMPLE, `condition` to NOT_SPECIFIED). */
export const productInput = productObject
  .superRefine((value, ctx) => checkAssemblyRule(value.type ?? 'SIMPLE', value.assembly, ctx))
  .meta({
    examples: [
      { code: 'P-001', name: 'Espresso beans 1 kg', price: 24.9, unit: 'UN', manage_stock: true },
    ],
  });
export type ProductInput = z.infer<typeof productInput>;

/** PATCH: only the fields sent change; the assembly rule is checked on the merged record. */
export const productPatch = productObject.partial();
export type ProductPatch = z.infer<typeof productPatch>;

export const imageRecord = z.object({
  id: recordId,
  url: z.string(),
  alt_text: z.string().nullable(),
  position: z.number().int(),
});
export type ImageRecord = z.infer<typeof imageRecord>;

export const stockBalanceRecord = z.object({
  warehouse_id: recordId,
  warehouse_code: z.string(),
  location_id: recordId.nullable(),
  location_code: z.string().nullable(),
  lot_id: recordId.nullable(),
  lot_number: z.string().nullable(),
  quantity: z.number(),
  updated_at: timestamp,
});
export type StockBalanceRecord = z.infer<typeof stockBalanceRecord>;

/** What a stock-managed product holds: the sum over its balances, then each balance. */
export const productStock = z.object({
  quantity: z.number(),
  balances: z.array(stockBalanceRecord),
});
export type ProductStock = z.infer<typeof productStock>;

export const assemblyRecord = z.object({
  components: z.array(
    z.object({
      product_id: recordId,
      code: z.string(),
      name: z.string(),
      quantity: z.number(),
    }),
  ),
});

export const productRecord = z.object({
  id: recordId,
  code: z.string(),
  name: z.string(),
  type: z.enum(productTypes),
  condition: z.enum(productConditions),
  unit: z.string(),
  price: z.number(),
  ncm: z.string().nullable(),
  manage_stock: z.boolean(),
  /** Ids of the categories, as create takes them. */
  categories: z.array(recordId),
  images: z.array(imageRecord),
  /** Set on ASSEMBLY products only. */
  assembly: assemblyRecord.nullable(),
  /** Set when `manage_stock` is true; null otherwise. */
  stock: productStock.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type ProductRecord = z.infer<typeof productRecord>;

export const productListQuery = pageQuery.extend({
  search: z.string().max(255).optional(),
});
export type ProductListQuery = z.infer<typeof productListQuery>;

export const productSearchQuery = pageQuery.extend({
  q: z.string().min(1).max(255),
});
export type ProductSearchQuery = z.infer<typeof productSearchQuery>;

export const productParams = z.object({ product: idParam });
export const productCodeParams = z.object({ code: z.string().min(1).max(100) });
export const productImageParams = z.object({ product: idParam, image: idParam });
export const categoryParams = z.object({ category: idParam });

export const categorySyncInput = z.object({
  product_ids: z.array(idSchema).max(maxBulkItems),
});
export const categorySyncRecord = z.object({
  category_id: recordId,
  product_ids: z.array(recordId),
});

export const imagesReplaceInput = z.object({
  images: z.array(imageInput).max(maxImagesPerProduct),
});

const required = (other: string) => `is required when ${other} is not present`;
const prohibits = (other: string) => `prohibits ${other} from being present`;

/** The same rule broken on both fields: each carries an issue naming the other. */
function issueOnBoth(
  ctx: z.RefinementCtx,
  first: string,
  second: string,
  rule: (other: string) => string,
): void {
  for (const [key, other] of [
    [first, second],
    [second, first],
  ] as const) {
    const message = `The :attribute field ${rule(other.replaceAll('_', ' '))}.`;
    ctx.addIssue({ code: 'custom', path: [key], message });
  }
}

/** Exactly one of `product_id` or `code` names the product of a bulk item. */
export function exactlyOne(
  value: Record<string, unknown>,
  ctx: z.RefinementCtx,
  first: string,
  second: string,
): void {
  const hasFirst = value[first] !== undefined && value[first] !== null;
  const hasSecond = value[second] !== undefined && value[second] !== null;
  // Neither: each is required; both: each prohibits the other.
  if (hasFirst === hasSecond) issueOnBoth(ctx, first, second, hasFirst ? prohibits : required);
}

/**
 * `exactlyOne` and `atMostOne` as JSON Schema states them, for the OpenAPI document (a
 * refinement has no schema of its own): `.meta()` puts them beside the object's properties.
 */
export const exactlyOneSchema = (first: string, second: string) => ({
  oneOf: [{ required: [first] }, { required: [second] }],
});
export const atMostOneSchema = (first: string, second: string) => ({
  not: { required: [first, second] },
});

/** At most one of two fields. */
export function atMostOne(
  value: Record<string, unknown>,
  ctx: z.RefinementCtx,
  first: string,
  second: string,
): void {
  const has = (key: string) => value[key] !== undefined && value[key] !== null;
  if (has(first) && has(second)) issueOnBoth(ctx, first, second, prohibits);
}

export const bulkPriceItem = z
  .object({
    product_id: idSchema.optional(),
    code: z.string().min(1).max(100).optional(),
    price: moneySchema,
  })
  .superRefine((value, ctx) => exactlyOne(value, ctx, 'product_id', 'code'))
  .meta({ allOf: [exactlyOneSchema('product_id', 'code')] });

export const bulkPriceInput = z.object({
  items: z.array(bulkPriceItem).min(1).max(maxBulkItems),
});
export type BulkPriceInput = z.infer<typeof bulkPriceInput>;

export const bulkUpdatedRecord = z.object({ updated: z.number().int() });
