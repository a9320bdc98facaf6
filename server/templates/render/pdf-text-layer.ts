import type { DrawnText } from './script-lines.ts';

/**
 * The text of lines drawn as pictures (script-lines.ts: Japanese, Arabic… where a PDF's
 * fonts have no glyphs) written over its picture in the PDF, in a font whose glyphs draw
 * nothing: what is seen is the picture, what pdftotext, a search, copying or a screen reader
 * reads is the text.
 *
 * Why a Type 3 font of empty glyphs, named `uniXXXX`, with a ToUnicode map: it is the text
 * that survives a PDF's trip through CUPS to cups-pdf (pdftops, then Ghostscript), tried on
 * this machine's CUPS and Ghostscript 10.0: text in render mode 3 (invisible) came out of
 * that trip without its text at all, and text in an embedded subset of a real font comes out
 * as glyph ids (pdf.ts); the Type 3 glyphs' text was read back by pdftotext.
 */

type Document = PDFKit.PDFDocument;

/** A picture of the SVG (ReceiptLine's `image` command) and where it is, in the SVG's units. */
const pictures =
  /<g transform="translate\(([\d.-]+),([\d.-]+)\)"><image href="data:image\/png;base64,([A-Za-z0-9+/=]+)" x="0" y="0" width="\d+" height="\d+"\/><\/g>/g;

/** A text where it is drawn, in the SVG's units. */
interface Placed extends DrawnText {
  left: number;
}

/** The texts of the SVG's drawn pictures, where they are drawn. */
function placedTexts(svg: string, texts: Map<string, DrawnText[]>): Placed[] {
  const placed: Placed[] = [];
  for (const [, x, y, image] of svg.matchAll(pictures)) {
    for (const text of texts.get(image!) ?? []) {
      placed.push({ ...text, left: Number(x) + text.x, top: Number(y) + text.top });
    }
  }
  return placed.filter(({ text }) => text.trim() !== '');
}

/**
 * The text in the order its characters are drawn from the left: in a right-to-left line,
 * its runs from the last to the first, the right-to-left ones reversed (as script-lines.ts
 * draws them). pdftotext reads a right-to-left text so drawn back in its own order.
 */
function visualOrder(text: string, rtl: boolean): string[] {
  const chars = [...text];
  if (!rtl) return chars;
  const leftward = (char: string) => /[\p{Script=Arabic}\p{Script=Hebrew}\s]/u.test(char);
  const runs: string[][] = [];
  for (const char of chars) {
    const last = runs.at(-1);
    if (last && leftward(last[0]!) === leftward(char)) last.push(char);
    else runs.push([char]);
  }
  return runs.reverse().flatMap((run) => (leftward(run[0]!) ? run.reverse() : run));
}

/** A font of the layer: up to 255 characters, each a one-byte code. */
interface LayerFont {
  name: string;
  ref: PDFKit.PDFKitReference;
  codes: Map<string, number>;
}

/** A character's glyph name (Adobe's naming: `uni3042`, `u1F600`), which readers map back to it. */
const glyphName = (char: string) => {
  const code = char.codePointAt(0)!;
  return code > 0xffff
    ? `u${code.toString(16).toUpperCase()}`
    : `uni${code.toString(16).toUpperCase().padStart(4, '0')}`;
};

const hex4 = (char: string) => Buffer.from(char, 'utf16le').swap16().toString('hex');

/** Type 3 fonts for the characters, 255 a font, each glyph one em wide and empty. */
function layerFonts(document: Document, chars: string[]): LayerFont[] {
  const empty = document.ref({});
  empty.end('1000 0 d0');
  const fonts: LayerFont[] = [];
  for (let at = 0; at < chars.length; at += 255) {
    const some = chars.slice(at, at + 255);
    const names = some.map(glyphName);
    const toUnicode = document.ref({});
    const pairs = some.map(
      (char, i) => `<${(i + 1).toString(16).padStart(2, '0')}> <${hex4(char)}>`,
    );
    const blocks: string[] = [];
    for (let i = 0; i < pairs.length; i += 100) {
      const block = pairs.slice(i, i + 100);
      blocks.push(`${block.length} beginbfchar\n${block.join('\n')}\nendbfchar`);
    }
    toUnicode.end(
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n' +
        '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n' +
        '/CMapName /ShopDesk-Text-UCS def /CMapType 2 def\n' +
        `1 begincodespacerange <01> <FF> endcodespacerange\n${blocks.join('\n')}\n` +
        'endcmap CMapName currentdict /CMap defineresource pop end end',
    );
    const ref = document.ref({
      Type: 'Font',
      Subtype: 'Type3',
      FontBBox: [0, 0, 0, 0],
      FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
      CharProcs: Object.fromEntries(names.map((name) => [name, empty])),
      Encoding: { Type: 'Encoding', Differences: [1, ...names] },
      FirstChar: 1,
      LastChar: some.length,
      Widths: some.map(() => 1000),
      Resources: {},
      ToUnicode: toUnicode,
    });
    // A dictionary without a stream: nothing to write, only to finish.
    ref.finalize();
    const codes = new Map(some.map((char, i) => [char, i + 1] as const));
    fonts.push({ name: `ShopDeskText${fonts.length + 1}`, ref, codes });
  }
  return fonts;
}

/** Where the SVG is drawn on a page: its origin and scale (points, y down), and the part shown. */
export interface SvgOnPage {
  x: number;
  y: number;
  scale: number;
  from: number;
  to: number;
}

/**
 * The layer for a document drawn from `svg`: a function that writes, on the current page,
 * the texts of the pictures in the part of the SVG the page shows (nothing when the SVG has
 * no drawn picture).
 */
export function textLayer(
  document: Document,
  svg: string,
  texts: Map<string, DrawnText[]>,
): (page: SvgOnPage) => void {
  const placed = placedTexts(svg, texts);
  if (placed.length === 0) return () => {};
  const fonts = layerFonts(document, [...new Set(placed.flatMap(({ text }) => [...text]))]);
  const fontOf = (char: string) => fonts.find((font) => font.codes.has(char))!;
  return ({ x, y, scale, from, to }) => {
    const shown = placed.filter(({ top }) => top >= from && top < to);
    let operators = '';
    for (const text of shown) {
      const chars = visualOrder(text.text, text.rtl);
      const size = text.height * scale * 0.7;
      const stretch = (100 * text.width * scale) / (chars.length * size);
      // pdfkit draws with y down: the text matrix turns the glyphs upright again.
      operators += `BT ${stretch.toFixed(3)} Tz 1 0 0 -1 ${(x + text.left * scale).toFixed(2)} ${(y + (text.top + text.height * 0.75) * scale).toFixed(2)} Tm`;
      for (const char of chars) {
        const font = fontOf(char);
        document.page.fonts[font.name] = font.ref;
        operators += ` /${font.name} ${size.toFixed(2)} Tf <${font.codes.get(char)!.toString(16).padStart(2, '0')}> Tj`;
      }
      operators += ' ET\n';
    }
    if (operators !== '') document.addContent(operators);
  };
}
