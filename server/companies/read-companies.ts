import type { Db } from '../storage/db.ts';

export async function companyExists(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('companies').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function countCompanies(db: Db): Promise<number> {
  const row = await db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The company's name, or undefined when there is no such company. */
export async function readCompanyName(db: Db, id: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('companies')
    .select('name')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.name;
}
