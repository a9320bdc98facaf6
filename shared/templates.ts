import { z } from 'zod';
import { idParam, pageQuery, recordId, timestamp } from './http.ts';
import { printerProfileSchema } from './printer-profiles.ts';

/**
 * Contracts of document templates (docs/templates.md): a company's receipt and label
 * templates, their versions, previews, and the template form of `POST /printing/jobs`.
 */

export const templateKinds = ['receipt', 'label'] as const;
export type TemplateKind = (typeof templateKinds)[number];

/** The same syntax as a route's name. */
export const templateNameSchema = z
  .string()
  .regex(
    /^[a-z0-9._-]{1,64}$/,
    'The :attribute field must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".',
  );

/** Largest template source, in characters. */
export const maxTemplateSource = 256 * 1024;

/** A JSON value as stored: data, sample data, a JSON Schema. */
const jsonObject = z.record(z.string(), z.unknown());

/** Images a template may carry. */
export const maxTemplateAssets = 8;
/** Largest image, decoded (as an image in a document: a logo is a few KB). */
export const maxAssetBytes = 256 * 1024;

/**
 * A template's images by name, each a PNG or JPEG in base64, printed with
 * `{% image "logo" %}` (docs/templates.md, "Images").
 */
export const templateAssetsSchema = z
  .record(
    z
      .string()
      .regex(
        /^[a-z0-9._-]{1,64}$/,
        'An asset name must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".',
      ),
    z
      .string()
      .max(Math.ceil(maxAssetBytes / 3) * 4)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'An asset must be a PNG or JPEG in base64.'),
  )
  .refine((assets) => Object.keys(assets).length <= maxTemplateAssets, {
    message: `A template has at most ${maxTemplateAssets} assets.`,
  })
  .meta({
    description:
      'Images by name, each a PNG or JPEG in base64 (at most 256 KiB decoded, 4 megapixels), printed with `{% image "name" %}` on a line of its own.',
  });

export const createTemplateBody = z
  .object({
    name: templateNameSchema,
    kind: z.enum(templateKinds),
    source: z.string().min(1).max(maxTemplateSource),
    data_schema: jsonObject.nullable().optional(),
    sample_data: jsonObject.nullable().optional(),
    assets: templateAssetsSchema.optional(),
  })
  .meta({
    examples: [
      {
        name: 'receipt',
        kind: 'receipt',
        source:
          '^^Demo Shop\n{% for item in items %}{{ item.name }} | {{ item.price | money }}\n{% endfor %}=',
        sample_data: { items: [{ name: 'Coffee', price: 2.5 }] },
      },
    ],
  });
export type CreateTemplateBody = z.infer<typeof createTemplateBody>;

/** An update: any of the fields; every accepted update makes a new version. */
export const updateTemplateBody = z.object({
  name: templateNameSchema.optional(),
  source: z.string().min(1).max(maxTemplateSource).optional(),
  data_schema: jsonObject.nullable().optional(),
  sample_data: jsonObject.nullable().optional(),
  /** The whole set of images: replaces the latest version's; left out, keeps them. */
  assets: templateAssetsSchema.optional(),
});
export type UpdateTemplateBody = z.infer<typeof updateTemplateBody>;

/**
 * A path of the data the template reads (docs/templates.md, "Data the template needs"):
 * `order.number`, `items[].name` for each element; the line of its first read; and whether
 * a job's data must hold it (`required`), or not, and why.
 */
export const templateVariable = z.object({
  path: z.string(),
  line: z.number().int(),
  need: z.enum(['required', 'default', 'conditional', 'optional']),
});
export type TemplateVariable = z.infer<typeof templateVariable>;

export const templateRecord = z.object({
  id: recordId,
  name: z.string(),
  kind: z.enum(templateKinds),
  version: z.number().int(),
  source: z.string(),
  data_schema: jsonObject.nullable(),
  sample_data: jsonObject.nullable(),
  /** The data the latest version reads, found when it was saved. */
  variables: z.array(templateVariable),
  assets: templateAssetsSchema,
  created_at: timestamp,
  updated_at: timestamp,
});
export type TemplateRecord = z.infer<typeof templateRecord>;

/** One version of a template, as it was saved. */
export const templateVersionRecord = z.object({
  template_id: recordId,
  version: z.number().int(),
  name: z.string(),
  kind: z.enum(templateKinds),
  source: z.string(),
  data_schema: jsonObject.nullable(),
  sample_data: jsonObject.nullable(),
  variables: z.array(templateVariable),
  assets: templateAssetsSchema,
  created_at: timestamp,
});
export type TemplateVersionRecord = z.infer<typeof templateVersionRecord>;

export const templateParams = z.object({ id: idParam });
export const templateVersionParams = z.object({ id: idParam, version: idParam });
export const templatesQuery = pageQuery;

export const previewFormats = ['svg', 'png', 'pdf', 'text', 'raw'] as const;
export type PreviewFormat = (typeof previewFormats)[number];

export const previewTemplateBody = z.object({
  /** The data to render; the template's `sample_data` when left out. */
  data: jsonObject.optional(),
  /** The printer to render for; an 80 mm ESC/POS printer when left out. */
  profile: printerProfileSchema.optional(),
  format: z.enum(previewFormats).default('png'),
  /** A version of the template other than its latest. */
  version: z.number().int().min(1).optional(),
  /**
   * A draft of the source, rendered instead of the saved one (nothing is saved): the
   * console's live preview while someone edits. Needs `printing.templates.write`.
   */
  source: z.string().min(1).max(maxTemplateSource).optional(),
});
export type PreviewTemplateBody = z.infer<typeof previewTemplateBody>;

export const jobPreviewQuery = z.object({
  format: z.enum(previewFormats).default('png'),
});

/** What a template job's record says of its template (null for a job sent as bytes). */
export const jobTemplateRef = z.object({
  id: recordId,
  name: z.string(),
  version: z.number().int(),
});
