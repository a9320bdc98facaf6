/**
 * `npm run docs:templates`: renders the worked examples of docs/templates.md (the template
 * and sample data in docs/templates/) with the server's own renderer, and writes their
 * previews beside them, so that the pictures in the docs never drift from what prints.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderDocument } from '../server/templates/render-document.ts';
import type { PrinterProfile } from '../shared/printer-profiles.ts';
import type { PreviewFormat } from '../shared/templates.ts';

const folder = fileURLToPath(new URL('../docs/templates/', import.meta.url));

const examples: Array<{
  name: string;
  /** What the picture's file name adds to the example's, for a second paper. */
  suffix?: string;
  profile: PrinterProfile;
  formats: PreviewFormat[];
}> = [
  { name: 'shop-receipt', profile: { language: 'escpos', width_mm: 80 }, formats: ['png'] },
  {
    name: 'shop-receipt',
    suffix: '-58mm',
    profile: { language: 'starprnt', width_mm: 58 },
    formats: ['png'],
  },
  { name: 'shelf-label', profile: { language: 'zpl', width_mm: 50, dpi: 203 }, formats: ['png'] },
  { name: 'delivery-note', profile: { language: 'pdf', width_mm: 'a4' }, formats: ['png', 'pdf'] },
];

for (const { name, suffix = '', profile, formats } of examples) {
  const source = readFileSync(`${folder}${name}.liquid`, 'utf8');
  const data = JSON.parse(readFileSync(`${folder}${name}.json`, 'utf8')) as object;
  for (const format of formats) {
    const { bytes } = await renderDocument({ kind: 'receipt', source }, data, profile, format);
    writeFileSync(`${folder}${name}${suffix}.${format}`, bytes);
    console.log(`docs/templates/${name}${suffix}.${format}: ${bytes.length} bytes`);
  }
}
