import type { CustomerInput, CustomerRecord } from '../../shared/customers.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import {
  assertCodeFree,
  codeRaceAsTaken,
  columnsOf,
  emptyOptionalColumns,
  insertAddresses,
  insertCustomer,
} from './customer-writes.ts';
import { readCustomer } from './read-customer.ts';

export async function createCustomer(
  storage: Storage,
  db: Db,
  companyId: number,
  input: CustomerInput,
  now: Date,
): Promise<CustomerRecord> {
  return storage
    .transaction(db, async (trx) => {
      if (input.code) await assertCodeFree(trx, companyId, input.code);
      const stamp = isoNow(now);
      const [row] = await insertCustomer(trx, {
        company_id: companyId,
        ...emptyOptionalColumns,
        status: 'active',
        // A new contact is a customer unless its roles say otherwise.
        is_customer: 1,
        is_supplier: 0,
        ...columnsOf(input),
        name: input.name,
        type: input.type,
        created_at: stamp,
        updated_at: stamp,
      });
      if (!row) throw new Error('the insert of a customer returned no id');
      await insertAddresses(trx, row.id, input.addresses ?? []);
      return readCustomer(trx, companyId, row.id);
    })
    .catch(codeRaceAsTaken);
}
