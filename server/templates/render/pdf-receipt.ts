import { deflateSync } from 'node:zlib';
import receiptline from 'receiptline';
import type { PrinterProfile, SheetSize } from '../../../shared/printer-profiles.ts';
import { layOutColumns } from './column-layout.ts';
import { pointsPerMm, sheetHeights, sheetMargin, sheetWidths, svgToPdf } from './pdf.ts';
import { type PdfDrawing, pdfCommand } from './pdf-command.ts';
import { pdfNumber as n, type PdfObject, pdfFile } from './pdf-file.ts';
import { columnsOf, receiptToSvg } from './receipt.ts';
import type { DrawnText } from './script-lines.ts';

/** The rules' width in dots (the svg command set's stroke-width). */
const ruleWidth = 2;

/**
 * A receipt as a PDF, written directly: ReceiptLine lays it out and draws it through a command
 * set that writes PDF operators (`pdf-command.ts`), and a small writer makes the file
 * (`pdf-file.ts`).
 *
 * Why: the SVG path (ReceiptLine's SVG, parsed again by svg-to-pdfkit into pdfkit) cost
 * 17–28 ms for the bench's 30-line receipt (bench/templates.ts); headless Chromium printing
 * the same receipt as HTML takes 50–60 ms warm, and ShopDesk's PDF is to be 20x faster than
 * that. Written directly it is 0.8 ms, of which ReceiptLine's own layout is 0.6 (the same as
 * for ESC/POS), and p50 1.5 ms with Liquid in the bench (2 CPUs, load 3.5). Deflating the
 * operators costs 0.05 ms and makes the 6.4 KB of them 1.1 KB, so the streams are compressed.
 *
 * The standard fonts hold WinAnsi (cp1252) only and the writer draws no images, so a receipt
 * with any other character or with an image takes the SVG path as before (pdf.ts: DejaVu Sans
 * Mono embedded, images drawn), so that nothing it printed before is lost.
 *
 * Layout as the SVG path's: on a roll (`paper` in mm) one page as long as the receipt with
 * 4 mm margins; on a sheet the receipt at the sheet's width between 36 pt margins, over as
 * many pages as it takes, each page ending after the last line that fits (never through one).
 */
export async function receiptToPdf(
  document: string,
  profile: PrinterProfile,
  paper: number | SheetSize,
  texts?: Map<string, DrawnText[]>,
): Promise<Buffer> {
  const { command, drawing } = pdfCommand();
  const cpl = columnsOf(profile);
  receiptline.transform(layOutColumns(document, cpl), { command, cpl, spacing: true });
  const drawn = drawing();
  if (drawn.unsupported !== null) return svgToPdf(receiptToSvg(document, profile), paper, texts);
  return drawingToPdf(drawn, paper);
}

/** Courier, as the standard 14 fonts are named (no embedding), in WinAnsiEncoding. */
const font = (name: string): PdfObject => ({
  entries: `/Type /Font /Subtype /Type1 /BaseFont /${name} /Encoding /WinAnsiEncoding`,
});

/** A page's part of the drawing: from `top` to `bottom` (dots), its operators from `start` to `end`. */
interface PagePart {
  top: number;
  bottom: number;
  start: number;
  end: number;
}

/**
 * The drawing cut into pages of `pageDots`: each page ends after the last block that fits it
 * (a block taller than a page is cut where the page is full, and drawn on both pages).
 */
function pageParts(drawing: PdfDrawing, pageDots: number): PagePart[] {
  const { blocks, height } = drawing;
  const parts: PagePart[] = [];
  let top = 0;
  let first = 0; // the first block on the page
  while (top < height || parts.length === 0) {
    let last = first;
    while (last < blocks.length && blocks[last]!.bottom <= top + pageDots + 1e-6) last++;
    // blocks[first, last) fit; when none does, the first is cut at the page's height.
    const cut = last === first;
    const bottom = cut ? Math.min(height, top + pageDots) : blocks[last - 1]!.bottom;
    const through = cut && last < blocks.length ? last + 1 : last;
    parts.push({
      top,
      bottom,
      start: first === 0 ? 0 : blocks[first - 1]!.end,
      end: through >= blocks.length ? drawing.content.length : blocks[through - 1]!.end,
    });
    if (bottom >= height) break;
    top = bottom;
    first = last;
  }
  return parts;
}

/**
 * The drawing (dots, y downwards) on pages. Objects: 1 catalog, 2 pages, 3 information, 4–5
 * the fonts, then each page and its content.
 *
 * Each page holds only its own blocks' operators, clipped to its part: a drawing shared by
 * the pages and clipped on each would do as well on paper, but pdftotext (and search, and
 * copying) reads clipped text too, so each page would also hold the lines around its breaks.
 */
function drawingToPdf(drawing: PdfDrawing, paper: number | SheetSize): Buffer {
  const roll = typeof paper === 'number';
  const margin = roll ? 4 * pointsPerMm : sheetMargin;
  const pageWidth = roll ? paper * pointsPerMm : sheetWidths[paper];
  const contentWidth = pageWidth - 2 * margin;
  const scale = contentWidth / drawing.width;
  const pageHeight = roll ? drawing.height * scale + 2 * margin : sheetHeights[paper];
  const parts = pageParts(drawing, roll ? drawing.height : (pageHeight - 2 * margin) / scale);
  const objects: PdfObject[] = [
    { entries: '/Type /Catalog /Pages 2 0 R' },
    {
      entries: `/Type /Pages /Kids [${parts.map((_, page) => `${6 + 2 * page} 0 R`).join(' ')}] /Count ${parts.length}`,
    },
    { entries: '/Producer (ShopDesk) /Creator (ShopDesk)' },
    font('Courier'),
    font('Courier-Bold'),
  ];
  const pageEntries =
    `/Type /Page /Parent 2 0 R /MediaBox [0 0 ${n(pageWidth)} ${n(pageHeight)}]` +
    ' /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >>';
  parts.forEach((part, page) => {
    const shown = (part.bottom - part.top) * scale;
    // Clip to the page's part, then map the drawing's dots (y down) to points (y up).
    const operators =
      `q ${n(margin)} ${n(pageHeight - margin - shown)} ${n(contentWidth)} ${n(shown)} re W n\n` +
      `${n(scale, 6)} 0 0 ${n(-scale, 6)} ${n(margin)} ${n(pageHeight - margin + part.top * scale)} cm\n` +
      `${ruleWidth} w\n${drawing.content.slice(part.start, part.end)}Q\n`;
    objects.push(
      { entries: `${pageEntries} /Contents ${7 + 2 * page} 0 R` },
      {
        entries: '/Filter /FlateDecode',
        stream: deflateSync(Buffer.from(operators, 'latin1')),
      },
    );
  });
  return pdfFile(objects, 1, 3);
}
