import { dataOf, pageOf } from '../../shared/http.ts';
import { jobParams } from '../../shared/printing.ts';
import {
  createTemplateBody,
  jobPreviewQuery,
  previewTemplateBody,
  templateParams,
  templateRecord,
  templatesQuery,
  templateVersionParams,
  templateVersionRecord,
  updateTemplateBody,
} from '../../shared/templates.ts';
import { HttpError } from '../http/errors.ts';
import { pageReply } from '../http/pagination.ts';
import { type AnyRoute, created, defineRoute, noContent, ok, type Reply } from '../http/route.ts';
import { boundJobGuard } from '../printing/index.ts';
import { createTemplate } from './create-template.ts';
import { deleteTemplate } from './delete-template.ts';
import { listTemplates } from './list-templates.ts';
import { previewJob } from './preview-job.ts';
import { previewTemplate } from './preview-template.ts';
import { readTemplate, readTemplateVersion } from './read-template.ts';
import type { Rendering } from './render/rendering.ts';
import { updateTemplate } from './update-template.ts';

/** Document templates (docs/templates.md): CRUD, versions, previews, and a job's preview. */

const tag = 'Printing';
const read = { permission: 'printing.templates.read' } as const;
const write = { permission: 'printing.templates.write' } as const;
const one = { description: 'The template.', schema: dataOf(templateRecord) };
const rendering = (description: string) => ({
  200: {
    description: `${description} The body is the rendering itself, with its content type: \`image/svg+xml\`, \`image/png\`, \`application/pdf\`, \`text/plain\`, or for \`raw\` the printer's (\`application/vnd.escpos\`, \`application/vnd.star.starprnt\`, \`application/vnd.zebra.zpl\`).`,
  },
});
const renderingReply = ({ contentType, bytes }: Rendering): Reply => ({
  status: 200,
  body: bytes,
  headers: { 'content-type': contentType, 'cache-control': 'no-store' },
});
const liquidNote =
  'The `source` is Liquid over ReceiptLine (`receipt`) or ZPL (`label`); every output is escaped for the document (`| raw` opts out). A Liquid error is a 422 on `source` naming its line and column; a `data_schema` that is not a JSON Schema, or `sample_data` that does not match it, a 422.';
const assetsNote =
  '`assets`: images by name, each a PNG or JPEG in base64 (at most 256 KiB, 4 megapixels, 8 a template), printed by `{% image "name" %}`, scaled to the paper and dithered; one that is not a PNG or JPEG, too large or broken is a 422 on `assets.NAME`.';

/**
 * A template's body with its images: the source (256 KiB) and up to 8 assets of 256 KiB
 * each in base64 (~2.7 MiB), under 4 MiB; the default 1 MiB would hold two logos.
 */
const templateBodyLimit = 4 * 1024 * 1024;

export const templateRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/printing/templates',
    access: read,
    operationId: 'listPrintTemplates',
    summary: "The company's templates",
    description: 'Extension. By name, paginated, each with its latest version.',
    tag,
    query: templatesQuery,
    responses: { 200: { description: 'A page of templates.', schema: pageOf(templateRecord) } },
    async handler({ query, caller, baseUrl, db }) {
      const { rows, total } = await listTemplates(db, caller.companyId, query);
      return pageReply(rows, total, query, baseUrl);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/templates',
    access: write,
    operationId: 'createPrintTemplate',
    summary: 'Create a template',
    description: `Extension. Its version 1. \`name\`: unique among the company's templates, the syntax of a route's name (422 when taken). ${liquidNote} ${assetsNote}`,
    tag,
    body: createTemplateBody,
    bodyLimit: templateBodyLimit,
    responses: {
      201: { ...one, description: 'Created.', headers: { Location: 'URL of the template.' } },
    },
    async handler({ body, caller, services, baseUrl, db }) {
      const template = await createTemplate(
        services.storage,
        db,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return created(template, `${baseUrl}/${template.id}`);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/templates/{id}',
    access: read,
    operationId: 'getPrintTemplate',
    summary: 'Read a template (its latest version)',
    description: "Extension. Another company's template → 404.",
    tag,
    params: templateParams,
    responses: { 200: one },
    async handler({ params, caller, db }) {
      return ok(await readTemplate(db, caller.companyId, params.id));
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/printing/templates/{id}',
    access: write,
    operationId: 'updatePrintTemplate',
    summary: 'Update a template (a new version)',
    description: `Extension. The fields given over the latest version make a new \`version\`; earlier versions stay readable and the jobs made from them keep them. The \`kind\` does not change. ${liquidNote}`,
    tag,
    params: templateParams,
    body: updateTemplateBody,
    bodyLimit: templateBodyLimit,
    responses: { 200: one },
    async handler({ params, body, caller, services, db }) {
      const template = await updateTemplate(
        services.storage,
        db,
        caller.companyId,
        params.id,
        body,
        services.clock.now(),
      );
      return ok(template);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/printing/templates/{id}',
    access: write,
    operationId: 'deletePrintTemplate',
    summary: 'Delete a template',
    description:
      'Extension. Its name is free again and no job can be made from it; jobs already made from it still print and preview.',
    tag,
    params: templateParams,
    responses: { 204: { description: 'Deleted.' } },
    async handler({ params, caller, services, db }) {
      await deleteTemplate(db, caller.companyId, params.id, services.clock.now());
      return noContent();
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/templates/{id}/versions/{version}',
    access: read,
    operationId: 'getPrintTemplateVersion',
    summary: 'Read one version of a template',
    description: 'Extension. As it was saved.',
    tag,
    params: templateVersionParams,
    responses: { 200: { description: 'The version.', schema: dataOf(templateVersionRecord) } },
    async handler({ params, caller, db }) {
      return ok(await readTemplateVersion(db, caller.companyId, params.id, params.version));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/templates/{id}/preview',
    access: read,
    operationId: 'previewPrintTemplate',
    summary: 'Render a template',
    description:
      "Extension. With `data` (default: its `sample_data`), for a `profile` (default: an 80 mm ESC/POS printer), as `format` (`svg`, `png`, `pdf`, `text`, or `raw`: the printer bytes). A PNG is at the printer's resolution (80 mm at 203 dpi: 576 dots wide). A `label` (ZPL) previews as `png` (its ZPL drawn, one pixel a dot: 50 mm at 203 dpi is 400 wide; as long as its `^LL`, else 30 mm), `text` or `raw`; `svg`, `pdf` → 422 on `format`; ZPL that cannot be drawn → 422 on `source`. Data that does not match the `data_schema` → 422 naming each path. `source`: a draft rendered instead of the saved source, nothing saved (a live preview while editing; needs `printing.templates.write`, else 403; a Liquid error in it → 422 on `source` with line and column).",
    tag,
    params: templateParams,
    body: previewTemplateBody,
    responses: rendering('The rendering.'),
    async handler({ params, body, caller, services, db }) {
      if (body.source !== undefined && !caller.permissions.has('printing.templates.write')) {
        throw new HttpError(
          'forbidden',
          'Previewing a draft of the source needs the printing.templates.write permission.',
        );
      }
      return renderingReply(
        await previewTemplate(services.renderer, db, caller.companyId, params.id, body),
      );
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/jobs/{job}/preview',
    access: { permission: 'printing.jobs.read' },
    operationId: 'previewPrintJob',
    summary: 'What a job printed',
    description:
      'Extension. `format=raw` (the bytes sent to the printer), or for a template job `svg`, `png`, `pdf`, `text`: rendered for the profile it printed with (before its claim: an 80 mm ESC/POS printer; `raw` then → 409). A label template job: `png` (its ZPL drawn), `text` or `raw`. A job sent as bytes previews as `raw` (and `text` or `pdf` when it is one); other formats → 422.',
    tag,
    params: jobParams,
    query: jobPreviewQuery,
    responses: rendering('What the job printed.'),
    async handler({ params, query, caller, services, db }) {
      const preview = await previewJob(
        { store: services.printing.store, renderer: services.renderer },
        db,
        caller.companyId,
        params.job,
        query.format,
        boundJobGuard(caller),
      );
      return renderingReply(preview);
    },
  }),
];
