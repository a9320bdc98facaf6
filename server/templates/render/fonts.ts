import { createRequire } from 'node:module';

/**
 * The fonts every rendering uses come with the project (the npm package dejavu-fonts-ttf),
 * never from the host: a preview looks the same on every server. DejaVu Sans Mono stands in
 * for a receipt printer's own font (ReceiptLine lays text out on a grid of 12 × 24 dots).
 */
const require = createRequire(import.meta.url);

export const monoFontFile = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf');
export const monoFamily = 'DejaVu Sans Mono';
