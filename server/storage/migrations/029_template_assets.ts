import type { MigrationDb } from './helpers.ts';

/**
 * A template version's images (docs/templates.md, "Images"): JSON text of name → PNG or
 * JPEG in base64, null for none. Kept with the version, as its source is, so a job prints
 * the logo of the version it was made from.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('print_template_versions').addColumn('assets', 'text').execute();
}
