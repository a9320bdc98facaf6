import type { Generated } from 'kysely';

export interface CustomerTables {
  customers: {
    id: Generated<number>;
    company_id: number;
    code: string | null;
    name: string;
    type: 'F' | 'J';
    status: 'active' | 'inactive';
    taxvat: string | null;
    telephone: string | null;
    mobile: string | null;
    email: string | null;
    credit_limit_cents: number | null;
    /** 1 or 0: the roles of shared/customers.ts, one column each (migration 012). */
    is_customer: Generated<number>;
    is_supplier: Generated<number>;
    created_at: string;
    updated_at: string;
  };
  customer_addresses: {
    id: Generated<number>;
    customer_id: number;
    position: number;
    zipcode: string;
    street: string;
    district: string;
    city: string;
    state: string;
    number: string;
    complement: string | null;
  };
  customer_relationships: {
    id: Generated<number>;
    company_id: number;
    parent_id: number;
    child_id: number;
    created_at: string;
  };
}
