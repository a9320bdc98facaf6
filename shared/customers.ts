import { z } from 'zod';
import { idParam, idSchema, pageQuery, recordId, timestamp } from './http.ts';
import { moneySchema } from './money.ts';

/** Contracts of customers and suppliers (docs/reference.md: customer and address payloads). */

export const customerTypes = ['F', 'J'] as const;
export const customerStatuses = ['active', 'inactive'] as const;
/** What a contact is to the company; a record answers them in this order (docs/customers.md). */
export const customerRoles = ['customer', 'supplier'] as const;
export type CustomerRole = (typeof customerRoles)[number];

/** Punctuation people type in tax ids; what is left must be digits. */
export function normalizeDigits(value: string): string {
  return value.replace(/[\s./-]/g, '');
}

const digitsOnly = (max: number) =>
  z
    .string()
    .transform(normalizeDigits)
    .pipe(z.string().regex(/^\d*$/, 'The :attribute field must contain only digits.').max(max))
    // What is sent, as the OpenAPI document states it: digits, with the punctuation and
    // blanks a tax id is written with, at most `max` digits.
    .meta({ pattern: `^[\\s./-]*(?:[0-9][\\s./-]*){0,${max}}$` });

/**
 * Text as Laravel's TrimStrings middleware leaves it: surrounding blanks go before the rules
 * run, so a name of three spaces is no name ("The name field is required.").
 */
const text = () => z.string().trim();

export const addressSchema = z.object({
  zipcode: text().length(8),
  street: text().min(1).max(255),
  district: text().min(1).max(255),
  city: text().min(1).max(255),
  state: text().length(2),
  number: text().min(1).max(100),
  complement: text().max(255).nullish(),
});
export type AddressInput = z.infer<typeof addressSchema>;

/**
 * At least one role, each once (Laravel's `distinct`: every copy of a repeated value is
 * named), in any order.
 */
const rolesSchema = z
  .array(z.enum(customerRoles))
  .min(1)
  .superRefine((roles, context) => {
    roles.forEach((role, index) => {
      if (roles.indexOf(role) !== roles.lastIndexOf(role)) {
        context.addIssue({
          code: 'custom',
          path: [index],
          message: 'The :attribute field has a duplicate value.',
          input: role,
        });
      }
    });
  })
  .meta({
    description:
      'What the contact is to the company: a customer, a supplier or both. Each role once, in any order. Default on create: ["customer"]; left out of PUT or PATCH, unchanged.',
    uniqueItems: true,
  });

/**
 * RFC 5321 §4.5.3.1.1: the local part (before the `@`) is at most 64 octets; longer ones
 * no mail server has to take. In the pattern (so the OpenAPI document says so) and with a
 * message of its own.
 */
const emailPattern = new RegExp(`^(?=[^@]{1,64}@)${z.regexes.email.source.slice(1)}`);
const emailSchema = z
  .email({
    pattern: emailPattern,
    error: (issue) =>
      typeof issue.input === 'string' && /^[^@]{65,}@/.test(issue.input)
        ? 'The :attribute field must not have more than 64 characters before the @.'
        : undefined,
  })
  .max(255);

export const customerFields = {
  name: text().min(3).max(255),
  type: z.enum(customerTypes),
  code: text().min(1).max(100).nullish(),
  taxvat: digitsOnly(14).nullish(),
  telephone: text().max(30).nullish(),
  mobile: text().max(30).nullish(),
  email: emailSchema.nullish(),
  addresses: z.array(addressSchema).max(50).optional(),
  credit_limit: moneySchema.nullish(),
  status: z.enum(customerStatuses).optional(),
  roles: rolesSchema.optional(),
};

/** POST and PUT: the whole record. */
export const customerInput = z.object(customerFields).meta({
  examples: [
    {
      name: 'Ada Lovelace',
      type: 'F',
      code: 'C-001',
      taxvat: '12345678901',
      email: 'ada@example.com',
      roles: ['customer'],
      addresses: [
        {
          zipcode: '01001000',
          street: 'Praca da Se',
          district: 'Se',
          city: 'Sao Paulo',
          state: 'SP',
          number: '1',
        },
      ],
    },
  ],
});
export type CustomerInput = z.infer<typeof customerInput>;

/** PATCH: only the fields sent change. */
export const customerPatch = customerInput.partial();
export type CustomerPatch = z.infer<typeof customerPatch>;

export const addressRecord = z.object({
  id: recordId,
  zipcode: z.string(),
  street: z.string(),
  district: z.string(),
  city: z.string(),
  state: z.string(),
  number: z.string(),
  complement: z.string().nullable(),
});

export const customerRecord = z
  .object({
    id: recordId,
    code: z.string().nullable(),
    name: z.string(),
    type: z.enum(customerTypes),
    status: z.enum(customerStatuses),
    roles: z.array(z.enum(customerRoles)).min(1).meta({
      description: 'A customer, a supplier or both, in this order.',
      uniqueItems: true,
    }),
    taxvat: z.string().nullable(),
    telephone: z.string().nullable(),
    mobile: z.string().nullable(),
    email: z.string().nullable(),
    credit_limit: z.number().nullable(),
    addresses: z.array(addressRecord),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    examples: [
      {
        id: 1,
        code: 'C-001',
        name: 'Ada Lovelace',
        type: 'F',
        status: 'active',
        roles: ['customer'],
        taxvat: '12345678901',
        telephone: null,
        mobile: null,
        email: 'ada@example.com',
        credit_limit: null,
        addresses: [
          {
            id: 1,
            zipcode: '01001000',
            street: 'Praca da Se',
            district: 'Se',
            city: 'Sao Paulo',
            state: 'SP',
            number: '1',
            complement: null,
          },
        ],
        created_at: '2026-11-22T10:00:00Z',
        updated_at: '2026-11-22T10:00:00Z',
      },
    ],
  });
export type CustomerRecord = z.infer<typeof customerRecord>;

export const customerListQuery = pageQuery.extend({
  search: z.string().max(255).optional(),
  code: z.string().max(100).optional(),
  taxvat: z.string().max(32).optional(),
  type: z.enum(customerTypes).optional(),
  status: z.enum(customerStatuses).optional(),
  /** Contacts with this role (and possibly others). */
  role: z.enum(customerRoles).optional(),
  updated_since: z.iso.datetime({ offset: true }).optional(),
});
export type CustomerListQuery = z.infer<typeof customerListQuery>;

export const customerParams = z.object({ customer: idParam });
export const customerCodeParams = z.object({ code: z.string().min(1).max(100) });
export const customerDocumentParams = z.object({
  document: z
    .string()
    .regex(/^[0-9]+$/)
    .max(32),
});

export const relationshipDirections = ['parent', 'child'] as const;

export const relationshipInput = z.object({
  related_customer_id: idSchema,
  direction: z.enum(relationshipDirections),
});

export const relationshipRecord = z.object({
  id: recordId,
  customer_id: recordId,
  related_customer_id: recordId,
  /** The related customer is the parent or the child of `customer_id`. */
  direction: z.enum(relationshipDirections),
  related_customer: z.object({
    id: recordId,
    code: z.string().nullable(),
    name: z.string(),
  }),
  created_at: timestamp,
});
export type RelationshipRecord = z.infer<typeof relationshipRecord>;

export const relationshipParams = z.object({
  customer: idParam,
  direction: z.enum(relationshipDirections),
  relatedCustomer: idParam,
});
