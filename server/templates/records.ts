import type { Selectable } from 'kysely';
import type { TemplateRecord, TemplateVersionRecord } from '../../shared/templates.ts';
import type { TemplateTables } from '../storage/tables/templates.ts';
import type { TemplateAssets } from './liquid.ts';
import type { TemplateSource } from './render-document.ts';
import { templateVariables } from './template-variables.ts';

export type TemplateRow = Selectable<TemplateTables['print_templates']>;
export type VersionRow = Selectable<TemplateTables['print_template_versions']>;

const jsonOrNull = (text: string | null) =>
  text === null ? null : (JSON.parse(text) as Record<string, unknown>);

/** The data a version reads (`template-variables.ts`), analysed once per version. */
export const variablesOf = (row: VersionRow) =>
  templateVariables(row.kind, row.source, row.data_schema);
/** A version's images by name; none when it has none. */
export const assetsOf = (row: Pick<VersionRow, 'assets'>): TemplateAssets =>
  row.assets === null ? {} : (JSON.parse(row.assets) as TemplateAssets);

/** What a version renders: its kind, source and images. */
export const sourceOf = (row: VersionRow): TemplateSource => ({
  kind: row.kind,
  source: row.source,
  assets: assetsOf(row),
});

/** A template as the API shows it: the template with its latest version's content. */
export function toTemplateRecord(template: TemplateRow, latest: VersionRow): TemplateRecord {
  return {
    id: template.id,
    name: template.name,
    kind: template.kind,
    version: template.version,
    source: latest.source,
    data_schema: jsonOrNull(latest.data_schema),
    sample_data: jsonOrNull(latest.sample_data),
    variables: variablesOf(latest),
    assets: assetsOf(latest),
    created_at: template.created_at,
    updated_at: template.updated_at,
  };
}

/** One saved version. */
export function toTemplateVersionRecord(row: VersionRow): TemplateVersionRecord {
  return {
    template_id: row.template_id,
    version: row.version,
    name: row.name,
    kind: row.kind,
    source: row.source,
    data_schema: jsonOrNull(row.data_schema),
    sample_data: jsonOrNull(row.sample_data),
    variables: variablesOf(row),
    assets: assetsOf(row),
    created_at: row.created_at,
  };
}
