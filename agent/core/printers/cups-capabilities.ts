import type { PrinterCapabilities } from '../../../shared/printer-capabilities.ts';
import type { IppAttributes } from './ipp.ts';
import { paperCapabilities, pwgMediaMillimetres } from './media-sizes.ts';

/** What a printer's capabilities are read from (RFC 8011 §5.4, PWG 5100.13). */
export const capabilityAttributes = [
  'media-supported',
  'sides-supported',
  'print-color-mode-supported',
  'color-supported',
  'printer-resolution-supported',
  'copies-supported',
  'document-format-supported',
  'printer-make-and-model',
  'device-uri',
];

/** CUPS's words for a queue without a driver (`lpadmin -v … ` with no `-m`): bytes pass as sent. */
const rawQueueModel = /^(Local Raw Printer|Raw Queue)$/i;

/**
 * A driver for a receipt or label printer may pass raw bytes (`lp -o raw`) on to it: such a
 * queue's languages are left unknown rather than guessed.
 */
const receiptOrLabelModel = /\b(TM-|TSP|Star|Zebra|ZPL|ESC\/?POS|receipt|thermal|label)/i;

/**
 * What a queue takes, as printer languages (docs/printing.md, "Profiles that fit their
 * printer"): a raw queue passes bytes to the device as sent, so what it takes is the
 * device's (unknown here: absent); a queue with a driver takes documents its filters convert,
 * PDF and text when `document-format-supported` lists them, and not ESC/POS, StarPRNT or ZPL
 * (sent raw to a cups-pdf queue, ESC/POS comes out as a blank page). A driver for a receipt
 * or label printer, by its make and model, is left unknown: it may pass raw bytes on.
 */
export function languagesFromIpp(attributes: IppAttributes): Array<'pdf' | 'text'> | undefined {
  const model = strings(attributes['printer-make-and-model'])[0] ?? '';
  const formats = strings(attributes['document-format-supported']);
  if (formats.length === 0 || model === '' || rawQueueModel.test(model)) return undefined;
  if (receiptOrLabelModel.test(model)) return undefined;
  const languages: Array<'pdf' | 'text'> = [];
  if (formats.includes('application/pdf')) languages.push('pdf');
  if (formats.includes('text/plain')) languages.push('text');
  return languages.length > 0 ? languages : undefined;
}

const duplexBySides: Record<string, 'none' | 'long-edge' | 'short-edge'> = {
  'one-sided': 'none',
  'two-sided-long-edge': 'long-edge',
  'two-sided-short-edge': 'short-edge',
};

const strings = (values: unknown[] | undefined): string[] =>
  (values ?? []).filter((value): value is string => typeof value === 'string');

/**
 * A CUPS queue's capabilities from its Get-Printer-Attributes answer, in the options' own
 * words. An attribute the queue does not give leaves its option out (unchecked).
 */
export function capabilitiesFromIpp(attributes: IppAttributes): PrinterCapabilities {
  const capabilities: PrinterCapabilities = {};
  const media = strings(attributes['media-supported'])
    .map(pwgMediaMillimetres)
    .filter((size): size is [number, number] => size !== null);
  Object.assign(capabilities, paperCapabilities(media));
  const sides = strings(attributes['sides-supported']);
  if (sides.length > 0) {
    const duplex = [
      ...new Set(sides.map((side) => duplexBySides[side]).filter((d) => d !== undefined)),
    ];
    if (duplex.length > 0) capabilities.duplex = duplex;
  }
  const modes = strings(attributes['print-color-mode-supported']);
  const colorSupported = attributes['color-supported']?.[0];
  if (modes.length > 0) {
    const color = (['color', 'monochrome'] as const).filter((mode) => modes.includes(mode));
    if (color.length > 0) capabilities.color = color;
  } else if (typeof colorSupported === 'boolean') {
    capabilities.color = colorSupported ? ['color', 'monochrome'] : ['monochrome'];
  }
  const resolutions = strings(attributes['printer-resolution-supported']).filter((text) =>
    /^\d{2,4}(x\d{2,4})?dpi$/.test(text),
  );
  if (resolutions.length > 0) capabilities.resolution = [...new Set(resolutions)].slice(0, 32);
  const copies = strings(attributes['copies-supported'])[0];
  const most = copies ? Number(copies.split('-')[1]) : Number.NaN;
  if (Number.isInteger(most) && most >= 1) capabilities.copies = Math.min(most, 1_000_000);
  const languages = languagesFromIpp(attributes);
  if (languages !== undefined) capabilities.languages = languages;
  return capabilities;
}
