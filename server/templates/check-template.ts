import type { TemplateKind } from '../../shared/templates.ts';
import { checkCodes } from './check-codes.ts';
import { checkCommandProperties } from './check-commands.ts';
import { checkData, checkDataSchema } from './data-check.ts';
import {
  eventLoopRenderLimitMs,
  parsedTemplate,
  renderLiquid,
  type TemplateAssets,
} from './liquid.ts';
import { checkImages } from './render/document-limits.ts';
import { checkAsset } from './render/image-check.ts';

/** What a version holds, before it is saved. */
export interface VersionContent {
  kind: TemplateKind;
  source: string;
  data_schema: Record<string, unknown> | null;
  sample_data: Record<string, unknown> | null;
  /** Images by name, base64 (`{% image "logo" %}`). */
  assets: TemplateAssets;
}

/**
 * A version is saved only if its source parses (a 422 naming the line and column), its
 * data schema compiles, its sample data, when given, matches the schema, and it renders
 * within the limits with its sample data (or with none), its barcodes within their
 * symbologies: a template that loops 10^9 times whatever its data, or prints `{code:A_B;
 * option:code39}`, is a 422 when it is saved, not a job that fails at its claim.
 */
export function checkVersion(content: VersionContent): void {
  parsedTemplate(content.kind, content.source);
  for (const [name, base64] of Object.entries(content.assets)) checkAsset(name, base64);
  if (content.kind === 'receipt') {
    checkImages(content.source, 'source');
    checkCommandProperties(content.source);
  }
  if (content.data_schema !== null) {
    checkDataSchema(content.data_schema);
    if (content.sample_data !== null) {
      checkData(JSON.stringify(content.data_schema), content.sample_data, 'sample_data');
    }
  }
  const refusal =
    content.sample_data === null
      ? { field: 'source', withWhat: 'without data' }
      : { field: 'sample_data', withWhat: 'with its sample data' };
  const document = renderLiquid(
    content.kind,
    content.source,
    content.sample_data ?? {},
    refusal,
    content.assets,
    eventLoopRenderLimitMs,
  );
  checkCodes(content.kind, document, refusal.field);
}
