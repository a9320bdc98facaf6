import { bitmapToPng } from '../../server/templates/render/png.ts';

/** What the render flood sends (render-flood.test.ts and its clients, flood-clients.ts). */

/** A white PNG of 3.99 megapixels (the most a document's images may have), in base64. */
const largestImage = bitmapToPng({
  width: 1999,
  height: 1999,
  pixels: new Uint8Array(1999 * 1999).fill(255),
}).toString('base64');

/**
 * The worst templates the bounds allow, each with its data. Their loops count what the data
 * says: saved without data, a template runs its Liquid once on the event loop (the check at
 * a save), which a loop of thousands would make the slow part of the test's set-up.
 */
export const worst: { name: string; source: string; data: Record<string, unknown> }[] = [
  {
    // The most QR codes, each with the most data a QR code holds (7,000 digits, version 40),
    // at the largest cell.
    name: 'most-qr-codes',
    source: `{% for q in (1..count) %}{code:{{ digits }}{{ digits }}; option:qrcode,8,l}\n{% endfor %}`,
    data: { count: 10, digits: '7'.repeat(3500) },
  },
  {
    name: 'largest-image',
    source: '{image:{{ logo | raw }}}\n^^^Shop',
    data: { logo: largestImage },
  },
  {
    // The longest strings, as many as the document's text allows.
    name: 'longest-strings',
    source: '{% for i in (1..count) %}{{ note }}\n{% endfor %}',
    data: { count: 63, note: 'n'.repeat(4096) },
  },
  {
    name: 'most-lines',
    source: '{% for i in (1..count) %}{{ i }} x item | {{ i }}.00\n{% endfor %}',
    data: { count: 4990 },
  },
];

export const formats = ['png', 'svg', 'pdf', 'raw'] as const;
