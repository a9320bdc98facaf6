import type { CustomerPatch, CustomerRecord } from '../../shared/customers.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import {
  assertCodeFree,
  codeRaceAsTaken,
  columnsOf,
  emptyOptionalColumns,
  replaceAddresses,
} from './customer-writes.ts';
import { readCustomer } from './read-customer.ts';

/**
 * PUT replaces every declared field (what is left out becomes empty); PATCH changes only
 * what is sent. Either way addresses, when sent, replace the whole list.
 */
export async function updateCustomer(
  storage: Storage,
  db: Db,
  companyId: number,
  id: number,
  input: CustomerPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<CustomerRecord> {
  return storage
    .transaction(db, async (trx) => {
      await readCustomer(trx, companyId, id);
      if (input.code) await assertCodeFree(trx, companyId, input.code, id);
      const cleared = mode === 'replace' ? emptyOptionalColumns : {};
      await trx
        .updateTable('customers')
        .set({ ...cleared, ...columnsOf(input), updated_at: isoNow(now) })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .execute();
      const addresses = input.addresses ?? (mode === 'replace' ? [] : undefined);
      if (addresses) await replaceAddresses(trx, id, addresses);
      return readCustomer(trx, companyId, id);
    })
    .catch(codeRaceAsTaken);
}
