import type { TemplateRecord, TemplateVariable } from '../../../shared/templates.ts';
import { ApiError } from '../api.ts';

/** What the Templates pages say about templates, and the printers a preview is drawn for. */

export type Template = TemplateRecord;
type Variable = TemplateVariable;

export const needWords: Record<Variable['need'], string> = {
  required: 'required',
  default: 'may be left out: the template gives a default',
  conditional: 'may be left out: read only under a condition',
  optional: 'may be left out: the data schema does not require it',
};

/** The data schema as the editor shows it: empty for none. */
export const schemaText = (schema: Template['data_schema']) =>
  schema === null ? '' : JSON.stringify(schema, null, 2);

export const kindWords: Record<Template['kind'], string> = {
  receipt: 'Receipt (ReceiptLine)',
  label: 'Label (ZPL)',
};

/** The printers a preview is drawn for, named as the tray app names them. */
export const printers = [
  {
    key: 'escpos-80',
    label: 'Receipt 80 mm, ESC/POS',
    profile: { language: 'escpos', width_mm: 80 },
  },
  {
    key: 'escpos-58',
    label: 'Receipt 58 mm, ESC/POS',
    profile: { language: 'escpos', width_mm: 58 },
  },
  { key: 'star-80', label: 'Receipt 80 mm, Star', profile: { language: 'starprnt', width_mm: 80 } },
  { key: 'pdf-a4', label: 'Office printer, A4 PDF', profile: { language: 'pdf', width_mm: 'a4' } },
  { key: 'zpl-50', label: 'Label 50 mm, ZPL', profile: { language: 'zpl', width_mm: 50 } },
] as const;

export const messageOf = (failure: unknown) =>
  failure instanceof ApiError
    ? [failure.message, ...Object.values(failure.errors ?? {}).flat()]
        .filter((line, index, all) => all.indexOf(line) === index)
        .join(' ')
    : String(failure);
