import {
  type PrinterCapabilities,
  type SheetSize,
  sheetSizes,
} from '../../../shared/printer-capabilities.ts';

/**
 * Paper sizes in the print options' vocabulary, from what a system names them: by their
 * dimensions, so that a PPD's `A4`, PWG's `iso_a4_210x297mm`, a driver's `om_a4-rotated_…`
 * or Windows's 827×1169 hundredths of an inch all read as `a4`.
 */
const sheetMillimetres: Record<SheetSize, [number, number]> = {
  a3: [297, 420],
  a4: [210, 297],
  a5: [148, 210],
  a6: [105, 148],
  b5: [176, 250],
  letter: [215.9, 279.4],
  legal: [215.9, 355.6],
  executive: [184.2, 266.7],
};

/** The widest a roll of a receipt or label printer is; wider media are sheets. */
const widestRollMm = 120;

/** A sheet size within 1.5 mm of these dimensions (either way round), or null. */
export function sheetSizeOf(widthMm: number, heightMm: number): SheetSize | null {
  const [short, long] = widthMm <= heightMm ? [widthMm, heightMm] : [heightMm, widthMm];
  return (
    sheetSizes.find((size) => {
      const [w, h] = sheetMillimetres[size];
      return Math.abs(w - short) <= 1.5 && Math.abs(h - long) <= 1.5;
    }) ?? null
  );
}

/** PWG 5101.1 self-describing media name → millimetres (`iso_a4_210x297mm`, `na_letter_8.5x11in`). */
export function pwgMediaMillimetres(name: string): [number, number] | null {
  if (/^custom_(min|max)_/.test(name)) return null; // a custom range, not a size
  const match = /_(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(mm|in)$/.exec(name);
  if (!match) return null;
  const unit = match[3] === 'in' ? 25.4 : 1;
  return [Number(match[1]) * unit, Number(match[2]) * unit];
}

/**
 * The paper part of the capabilities from the media a printer lists, in millimetres. Sheet
 * sizes by name; a printer that lists no sheet and only media at most 120 mm wide is a roll
 * printer, whose roll is its widest medium.
 */
export function paperCapabilities(
  media: Array<[number, number]>,
): Pick<PrinterCapabilities, 'paper' | 'roll_width_mm'> {
  if (media.length === 0) return {};
  const sheets = new Set<SheetSize>();
  for (const [width, height] of media) {
    const size = sheetSizeOf(width, height);
    if (size) sheets.add(size);
  }
  if (sheets.size > 0) return { paper: sheetSizes.filter((size) => sheets.has(size)) };
  const widths = media.map(([width]) => width);
  if (widths.every((width) => width <= widestRollMm)) {
    const roll = Math.round(Math.max(...widths));
    if (roll >= 20) return { paper: [`roll-${roll}mm`], roll_width_mm: roll };
  }
  return {};
}
