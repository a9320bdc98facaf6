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
];

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
  return capabilities;
}
