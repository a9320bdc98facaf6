import { invalidField } from '../../domain-errors.ts';

/** Largest image a receipt may carry, decoded (a logo is a few KB). */
export const maxImageBytes = 256 * 1024;

const imageProperty = /\{image:([^}]*)\}/g;
/** A PNG's first bytes (`\x89PNG\r\n\x1a\n`) in base64. */
const pngPrefix = 'iVBORw0KGgo';

/**
 * Images in a receipt (ReceiptLine's `{image:…}`) are PNGs in base64, each at most
 * `maxImageBytes` decoded: anything else is a 422 on `field`, before receiptline decodes it.
 */
export function checkImages(document: string, field: string): void {
  for (const [, value] of document.matchAll(imageProperty)) {
    const base64 = (value ?? '').replace(/^data:image\/png;base64,/, '').replace(/\s+/g, '');
    if (!base64.startsWith(pngPrefix) || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) {
      throw invalidField(field, 'An image must be a PNG in base64 ({image:iVBORw0KGgo…}).');
    }
    if ((base64.length * 3) / 4 > maxImageBytes) {
      throw invalidField(field, `An image must be at most ${maxImageBytes / 1024} KiB.`);
    }
  }
}
