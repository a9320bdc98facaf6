import iconv from 'iconv-lite';
import type { SheetSize } from '../../../shared/printer-profiles.ts';
import { monoFontFile } from './fonts.ts';
import { textLayer } from './pdf-text-layer.ts';
import type { DrawnText } from './script-lines.ts';

/**
 * pdfkit and svg-to-pdfkit, loaded for the first PDF that needs them: loading pdfkit (with
 * fontkit and its tables) was ~80 ms of the ~610 ms of CPU a `shopdesk serve` start took
 * (median of 8 starts on a new SQLite file), for a path few receipts take.
 */
const load = () =>
  Promise.all([import('pdfkit'), import('svg-to-pdfkit')]).then(([pdf, svg]) => ({
    PDFDocument: pdf.default,
    SVGtoPDF: svg.default,
  }));
let drawing: ReturnType<typeof load> | undefined;
const loadDrawing = () => {
  drawing ??= load();
  return drawing;
};

export const pointsPerMm = 72 / 25.4;
export const sheetMargin = 36;

/** The SVG's own size, from its `width` and `height` attributes (ReceiptLine writes `px`). */
function svgSize(svg: string): { width: number; height: number } {
  const width = Number(/width="([\d.]+)px"/.exec(svg)?.[1] ?? 576);
  const height = Number(/height="([\d.]+)px"/.exec(svg)?.[1] ?? 576);
  return { width, height };
}

/**
 * A receipt's SVG as a PDF, for what the direct writer (pdf-receipt.ts) cannot draw: text
 * outside WinAnsi, images (it is about 20x slower: svg-to-pdfkit parses the SVG again). Its
 * text is kept as text (searchable, and what pdftotext reads): on a roll (`paper` in mm) one
 * page as long as the receipt; on a sheet (`a4`…) the receipt scaled to the sheet's width
 * between margins, over as many pages as it takes. The pictures of lines drawn in scripts
 * (`texts`, by picture) carry their text over them (pdf-text-layer.ts).
 */
export async function svgToPdf(
  svg: string,
  paper: number | SheetSize,
  texts: Map<string, DrawnText[]> = new Map(),
): Promise<Buffer> {
  const { PDFDocument, SVGtoPDF } = await loadDrawing();
  const size = svgSize(svg);
  const roll = typeof paper === 'number';
  const margin = roll ? 4 * pointsPerMm : sheetMargin;
  const pageWidth = roll ? paper * pointsPerMm : undefined;
  const contentWidth = (pageWidth ?? sheetWidths[paper as SheetSize]) - 2 * margin;
  const scale = contentWidth / size.width;
  const contentHeight = size.height * scale;
  const document = new PDFDocument({
    size: roll ? [pageWidth!, contentHeight + 2 * margin] : paper.toUpperCase(),
    margin,
    autoFirstPage: false,
    // No creation time: the same data and profile make the same bytes (a job's preview is
    // what it printed, and equal documents are stored once).
    info: { Producer: 'ShopDesk', Creator: 'ShopDesk', CreationDate: new Date(0) },
  });
  const font = fontFor(svg);
  if (font === 'mono') document.registerFont('mono', monoFontFile);
  const chunks: Buffer[] = [];
  document.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<Buffer>((resolve, reject) => {
    document.on('end', () => resolve(Buffer.concat(chunks)));
    document.on('error', reject);
  });
  const pageHeight = roll ? contentHeight + 2 * margin : (sheetHeights[paper as SheetSize] ?? 842);
  const usable = pageHeight - 2 * margin;
  const pages = roll ? 1 : Math.max(1, Math.ceil(contentHeight / usable));
  const layer = textLayer(document, svg, texts);
  for (let page = 0; page < pages; page++) {
    document.addPage();
    document.save();
    document.rect(margin, margin, contentWidth, usable).clip();
    SVGtoPDF(document, svg, margin, margin - page * usable, {
      width: contentWidth,
      height: contentHeight,
      preserveAspectRatio: 'xMinYMin meet',
      fontCallback: () => font,
    });
    document.restore();
    const from = roll ? 0 : (page * usable) / scale;
    const to = roll ? Number.POSITIVE_INFINITY : ((page + 1) * usable) / scale;
    layer({ x: margin, y: margin - page * usable, scale, from, to });
  }
  document.end();
  return ended;
}

/**
 * The PDF's font: the PDF standard Courier when every character is in its encoding
 * (WinAnsi, which is cp1252), else the project's DejaVu Sans Mono, embedded. Both are
 * monospaced at 0.6 em, ReceiptLine's grid. Courier is preferred because it is text that
 * survives being printed to PDF again: cups-pdf runs a PDF through Ghostscript, which keeps
 * a standard font's text readable (pdftotext) and turns an embedded subset's into glyph ids.
 */
function fontFor(svg: string): 'Courier' | 'mono' {
  return iconv.decode(iconv.encode(svg, 'cp1252'), 'cp1252') === svg ? 'Courier' : 'mono';
}

/** Sheet sizes in points (ISO 216, US). */
export const sheetWidths: Record<SheetSize, number> = {
  a4: 595.28,
  a5: 419.53,
  letter: 612,
  legal: 612,
};
export const sheetHeights: Record<SheetSize, number> = {
  a4: 841.89,
  a5: 595.28,
  letter: 792,
  legal: 1008,
};
