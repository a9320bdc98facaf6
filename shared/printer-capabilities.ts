import { z } from 'zod';
import { printerLanguages } from './printer-profiles.ts';

/**
 * What a printer can do, in the print options' own vocabulary (docs/printing.md, "Printer
 * capabilities"): the agent reports it per printer, `POST /printing/jobs` checks a job's
 * options against it. An option the agent could not learn is absent, and absent means
 * unchecked.
 */

/** Sheet sizes a job may ask for by name (ISO 216, ISO B5, North American). */
export const sheetSizes = ['a3', 'a4', 'a5', 'a6', 'b5', 'letter', 'legal', 'executive'] as const;
export type SheetSize = (typeof sheetSizes)[number];

/** A receipt or label roll by its width: `roll-80mm`, 20 to 120 mm. */
export const rollPaperPattern = /^roll-([2-9][0-9]|1[01][0-9]|120)mm$/;

export const paperSchema = z.union([
  z.enum(sheetSizes),
  z
    .string()
    .regex(
      rollPaperPattern,
      'The :attribute field must be a3, a4, a5, a6, b5, letter, legal, executive or a roll width such as roll-80mm (20 to 120 mm).',
    ),
]);
export type Paper = z.infer<typeof paperSchema>;

/** The width of a `roll-80mm` paper in millimetres, or null for a sheet size. */
export function rollWidthOf(paper: string): number | null {
  const match = rollPaperPattern.exec(paper);
  return match ? Number(match[1]) : null;
}

export const duplexModes = ['none', 'long-edge', 'short-edge'] as const;
export const colorModes = ['color', 'monochrome'] as const;

/** `300dpi`, or `600x300dpi` when the two directions differ. */
export const resolutionSchema = z.string().regex(/^\d{2,4}(x\d{2,4})?dpi$/);

export const printerCapabilitiesSchema = z.object({
  paper: z.array(paperSchema).max(64).optional(),
  duplex: z.array(z.enum(duplexModes)).max(3).optional(),
  color: z.array(z.enum(colorModes)).max(2).optional(),
  /** Shown, not checked: no job option asks for a resolution. */
  resolution: z.array(resolutionSchema).max(32).optional(),
  /** The most copies of one job the printer takes (IPP copies-supported's upper bound). */
  copies: z.number().int().min(1).max(1_000_000).optional(),
  /** Receipt and label printers: the width of the roll loaded, in millimetres. */
  roll_width_mm: z.number().int().min(10).max(400).optional(),
  /**
   * The printer languages it answered in (a printer reached directly, `socket://`: the status
   * request it answered, docs/agent.md "Printers reached directly"), so that a route profile
   * in another language can be told apart from one it prints.
   */
  languages: z.array(z.enum(printerLanguages)).max(5).optional(),
  /**
   * The content types of bytes it takes (a printer that fetches its own jobs says so: a Star
   * CloudPRNT printer takes StarPRNT and plain text), so that `POST /printing/jobs` refuses
   * (422) bytes no printer of the route takes. Absent: unchecked.
   */
  content_types: z.array(z.string().min(1).max(100)).max(16).optional(),
});
export type PrinterCapabilities = z.infer<typeof printerCapabilitiesSchema>;
