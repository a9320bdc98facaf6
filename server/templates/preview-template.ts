import type { PreviewTemplateBody } from '../../shared/templates.ts';
import { invalidField } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { checkData } from './data-check.ts';
import { checkDataStrings } from './data-limits.ts';
import { readTemplateRows, readVersionRow } from './read-template.ts';
import { sourceOf } from './records.ts';
import type { Rendering } from './render/rendering.ts';
import { defaultProfile } from './render-document.ts';
import type { DocumentRenderer } from './render-pool.ts';
import { checkRequiredData, templateVariables } from './template-variables.ts';

/**
 * The template (its latest version, or the one asked) rendered with the data given, or its
 * `sample_data`, for a profile (an 80 mm ESC/POS printer by default), in a preview format.
 * With `source`, that draft is rendered in place of the version's source (the version's kind
 * and data schema still apply); a Liquid error in it is a 422 on `source` with line and column.
 * Data given is checked as a job's is, for the paths the template requires (the same 422);
 * the sample data is not, so a template saved before that check still previews.
 * Rendered on the renderer's threads, in the company's turn.
 */
export async function previewTemplate(
  renderer: DocumentRenderer,
  db: Db,
  companyId: number,
  templateId: number,
  input: PreviewTemplateBody,
): Promise<Rendering> {
  const { template, latest } = await readTemplateRows(db, companyId, templateId);
  const version =
    input.version === undefined || input.version === template.version
      ? latest
      : await readVersionRow(db, companyId, templateId, input.version);
  const data =
    input.data ?? (version.sample_data === null ? undefined : JSON.parse(version.sample_data));
  if (data === undefined) {
    throw invalidField('data', 'The data field is required when the template has no sample data.');
  }
  checkData(version.data_schema, data);
  checkDataStrings(data);
  const rendered = input.source === undefined ? version : { ...version, source: input.source };
  if (input.data !== undefined) {
    checkRequiredData(templateVariables(rendered.kind, rendered.source, version.data_schema), data);
  }
  return renderer.render({
    companyId,
    template: sourceOf(rendered),
    data,
    profile: input.profile ?? defaultProfile,
    format: input.format,
  });
}
