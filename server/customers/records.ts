import type { Selectable } from 'kysely';
import {
  type CustomerRecord,
  type CustomerRole,
  customerRoles,
  type RelationshipRecord,
} from '../../shared/customers.ts';
import { fromCents } from '../../shared/money.ts';
import type { CustomerTables } from '../storage/tables/customers.ts';

export type CustomerRow = Selectable<CustomerTables['customers']>;
export type AddressRow = Selectable<CustomerTables['customer_addresses']>;

/** Each role's column (migration 012). */
export const roleColumns = {
  customer: 'is_customer',
  supplier: 'is_supplier',
} as const satisfies Record<CustomerRole, keyof CustomerRow>;

/** A customer as the API answers it, from its row and its addresses in their order. */
export function toCustomerRecord(row: CustomerRow, addresses: AddressRow[]): CustomerRecord {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    status: row.status,
    roles: customerRoles.filter((role) => Number(row[roleColumns[role]]) === 1),
    taxvat: row.taxvat,
    telephone: row.telephone,
    mobile: row.mobile,
    email: row.email,
    credit_limit:
      row.credit_limit_cents === null ? null : fromCents(Number(row.credit_limit_cents)),
    addresses: addresses.map((a) => ({
      id: a.id,
      zipcode: a.zipcode,
      street: a.street,
      district: a.district,
      city: a.city,
      state: a.state,
      number: a.number,
      complement: a.complement,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A relationship as the API shows it, seen from `customerId`. */
export function toRelationshipRecord(
  customerId: number,
  row: { id: number; parent_id: number; created_at: string },
  related: { id: number; code: string | null; name: string },
): RelationshipRecord {
  return {
    id: row.id,
    customer_id: customerId,
    related_customer_id: related.id,
    direction: row.parent_id === customerId ? 'child' : 'parent',
    related_customer: { id: related.id, code: related.code, name: related.name },
    created_at: row.created_at,
  };
}
