import { sql } from 'kysely';
import { type MigrationDb, withId } from './helpers.ts';

/**
 * Document templates (docs/templates.md): a company's templates, every version of each (a
 * job keeps the version it was made from, so versions are never changed nor deleted, and a
 * deleted template keeps its versions for the jobs made from them); the jobs made from a
 * template (their version, their data's document, the profile they were rendered for); and
 * the printer profile of a route.
 */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('print_templates'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('deleted_at', 'varchar(32)')
    .execute();
  // A name is unique among the company's templates that are not deleted.
  await db.schema
    .createIndex('print_templates_name')
    .on('print_templates')
    .columns(['company_id', 'name'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await withId(db, db.schema.createTable('print_template_versions'))
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('template_id', 'integer', (c) => c.notNull().references('print_templates.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('data_schema', 'text')
    .addColumn('sample_data', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('print_template_versions_version')
    .on('print_template_versions')
    .columns(['template_id', 'version'])
    .unique()
    .execute();

  await db.schema
    .createTable('print_template_jobs')
    .addColumn('job_id', 'integer', (c) => c.primaryKey().references('print_jobs.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('version_id', 'integer', (c) => c.notNull().references('print_template_versions.id'))
    .addColumn('data_document_id', 'integer', (c) => c.notNull().references('print_documents.id'))
    // The profile the job was rendered for (JSON), null until an agent claimed it.
    .addColumn('rendered_profile', 'text')
    .execute();

  await db.schema.alterTable('print_routes').addColumn('profile', 'text').execute();
}
