import { invalidField } from '../../domain-errors.ts';
import { maxImageBytes, maxImagePixels } from './document-limits.ts';
import { imageHeader } from './image-header.ts';
import { decodeImage } from './images.ts';

/**
 * A template's asset checked when the template is saved, a 422 on `assets.NAME` otherwise:
 * a PNG or JPEG, at most `maxImageBytes`, its pixels (from the header, before decoding)
 * within `maxImagePixels`, and whole (it decodes), so that a broken logo is refused when it
 * is saved, not at every job's claim. Decoding the largest asset allowed costs tens of
 * milliseconds once, on save.
 */
export function checkAsset(name: string, base64: string): void {
  const field = `assets.${name}`;
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > maxImageBytes) {
    throw invalidField(field, `The image ${name} must be at most ${maxImageBytes / 1024} KiB.`);
  }
  const header = imageHeader(bytes);
  if (!header) throw invalidField(field, `The image ${name} is not a PNG or JPEG.`);
  if (header.width * header.height > maxImagePixels) {
    throw invalidField(
      field,
      `The image ${name} has more than ${maxImagePixels / 1_000_000} megapixels (${header.width} × ${header.height}).`,
    );
  }
  try {
    decodeImage(bytes);
  } catch (error) {
    throw invalidField(
      field,
      `The image ${name} could not be decoded: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
}
