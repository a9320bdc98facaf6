import { z } from 'zod';

/**
 * What a route's printer understands (docs/templates.md, "Printer profiles"): the language
 * a template job is rendered into when an agent serving the route claims it, and the paper.
 * A route without a profile prints what it is sent, as a raw job's bytes.
 */

export const printerLanguages = ['escpos', 'starprnt', 'zpl', 'pdf', 'text', 'epos'] as const;
export type PrinterLanguage = (typeof printerLanguages)[number];

/** Receipt rolls, in mm: 58, 80 and 112 mm paper. */
export const rollWidths = [58, 80, 112] as const;
/** Sheets a `pdf` profile may name instead of a roll width. */
export const sheetSizes = ['a4', 'a5', 'letter', 'legal'] as const;
export type SheetSize = (typeof sheetSizes)[number];

/**
 * Single-byte code pages a receipt printer is switched to (ESC t, ESC GS t). Text outside
 * the code page is transliterated (é → e, € → EUR) or printed as `?`, never dropped.
 */
export const codepages = [
  'cp437',
  'cp852',
  'cp858',
  'cp860',
  'cp863',
  'cp865',
  'cp866',
  'cp1252',
] as const;
export type Codepage = (typeof codepages)[number];

/**
 * The double-byte modes of receipt printers sold in East Asia (ESC/POS `FS &`, `FS C`;
 * StarPRNT's Kanji mode), as ReceiptLine names them: Shift JIS (Japanese), GB18030
 * (Simplified Chinese), Big5 (Traditional Chinese), KS C 5601 (Korean). A profile that names
 * one prints the text that mode holds as text; text neither it nor the code page holds is
 * printed as a picture of its line.
 */
export const multibyteModes = ['shiftjis', 'gb18030', 'big5', 'ksc5601'] as const;
export type Multibyte = (typeof multibyteModes)[number];

/** Characters a line holds at each roll width with the printers' 12-dot font A. */
export const defaultColumns: Record<(typeof rollWidths)[number], number> = {
  58: 32,
  80: 48,
  112: 69,
};

export const printerProfileSchema = z
  .strictObject({
    language: z.enum(printerLanguages),
    /** A roll width in mm (a label's width for `zpl`), or a sheet size for `pdf`. */
    width_mm: z.union([z.number().int().min(10).max(300), z.enum(sheetSizes)]).optional(),
    columns: z.number().int().min(16).max(160).optional(),
    dpi: z.union([z.literal(203), z.literal(300)]).optional(),
    cut: z.boolean().optional(),
    drawer: z.boolean().optional(),
    codepage: z.enum(codepages).optional(),
    multibyte: z.enum(multibyteModes).optional(),
  })
  .superRefine((profile, ctx) => {
    const { language, width_mm: width } = profile;
    const roll = language === 'escpos' || language === 'starprnt' || language === 'text';
    if (roll && width !== undefined && !rollWidths.includes(width as 58)) {
      ctx.addIssue({
        code: 'custom',
        path: ['width_mm'],
        message: `The :attribute field must be one of ${rollWidths.join(', ')} for ${language}.`,
      });
    }
    if (language === 'zpl' && typeof width === 'string') {
      ctx.addIssue({
        code: 'custom',
        path: ['width_mm'],
        message: 'The :attribute field must be a width in mm for zpl.',
      });
    }
  });
export type PrinterProfile = z.infer<typeof printerProfileSchema>;
