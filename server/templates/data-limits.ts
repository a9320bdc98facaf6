import { invalidField } from '../domain-errors.ts';
import { maxImageBytes } from './render/document-limits.ts';

/**
 * Characters one string of a template's data may have (a key too): 4,096. A name, an
 * address or an order's note is tens to hundreds; 4,096 characters wrap to 86 lines of an
 * 80 mm receipt and take ~50 ms to lay out, where ReceiptLine's layout grows faster than the
 * length (100,000 characters in a name held a render for over a second). The one exception
 * is a PNG or JPEG in base64 (a logo a template prints with `{image:{{ logo }}}`), whose own
 * bound is the image's: at most `maxImageBytes` decoded, its pixels counted at the render.
 */
export const maxDataString = 4096;

/** Base64 of `maxImageBytes`, and a little for a `{image:…}` around it. */
const maxImageText = Math.ceil(maxImageBytes / 3) * 4 + 64;
/** A PNG or JPEG in base64 (their first bytes: `\x89PNG\r\n\x1a\n`, `FF D8 FF`). */
const imageText = /^(?:\{(?:image|i):)?(?:iVBORw0KGgo|\/9j\/)[A-Za-z0-9+/=\s]*\}?$/;

const tooLong = (text: string) =>
  text.length > maxDataString && (text.length > maxImageText || !imageText.test(text));

/**
 * A 422 on the first string of `data` (a value or a key) longer than `maxDataString`,
 * naming its path (`data.customer.name`). Walked without recursion: the data is JSON a
 * client sent, as deep as it likes.
 */
export function checkDataStrings(data: unknown, field = 'data'): void {
  const stack: { value: unknown; path: string }[] = [{ value: data, path: field }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (tooLong(value)) {
        throw invalidField(
          path,
          `The ${path} field must be at most ${maxDataString} characters (a template's data is bounded before it is rendered).`,
        );
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        stack.push({ value: item, path: `${path}.${index}` });
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (tooLong(key)) {
          throw invalidField(path, `A key of ${path} is longer than ${maxDataString} characters.`);
        }
        stack.push({ value: item, path: `${path}.${key}` });
      }
    }
  }
}
