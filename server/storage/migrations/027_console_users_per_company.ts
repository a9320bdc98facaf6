import type { MigrationDb } from './helpers.ts';

/**
 * A console account belongs to one company, and an address may have one in each company:
 * unique per company and address, no longer across companies. Inviting an address that had
 * an account in another company answered "already taken", which let any owner find out
 * whether an address had an account anywhere (docs/console.md, "Inviting someone"). The
 * index leads with the address, so that sign-in (by address alone) still finds its accounts
 * by one index step.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('console_users_email').execute();
  await db.schema
    .createIndex('console_users_email_company')
    .on('console_users')
    .columns(['email', 'company_id'])
    .unique()
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('console_users_email_company').execute();
  await db.schema
    .createIndex('console_users_email')
    .on('console_users')
    .column('email')
    .unique()
    .execute();
}
