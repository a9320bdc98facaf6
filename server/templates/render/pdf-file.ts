/**
 * A PDF file from its objects: the header, each object, the cross-reference table and the
 * trailer (ISO 32000-1 §7.5). It knows nothing of receipts; `pdf-receipt.ts` says what the
 * objects are. Nothing in it depends on the time, so the same objects make the same bytes.
 */

/** One indirect object: its dictionary's entries (without `<<` `>>`) and, for a stream, its data. */
export interface PdfObject {
  entries: string;
  /** A stream's data, already filtered as its `/Filter` entry says (`/Length` is added). */
  stream?: Buffer;
}

/** A `%`-comment of four bytes above 127 after the header marks the file as binary (§7.5.2). */
const header = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');

/**
 * The file holding `objects`, numbered from 1 in order; `root` and `info` are the numbers of
 * the catalog and the document information dictionary.
 */
export function pdfFile(objects: PdfObject[], root: number, info: number): Buffer {
  const parts: Buffer[] = [header];
  const offsets: number[] = [];
  let offset = header.length;
  const push = (part: Buffer) => {
    parts.push(part);
    offset += part.length;
  };
  objects.forEach((object, index) => {
    offsets.push(offset);
    const number = index + 1;
    if (object.stream === undefined) {
      push(Buffer.from(`${number} 0 obj\n<< ${object.entries} >>\nendobj\n`, 'latin1'));
      return;
    }
    push(
      Buffer.from(
        `${number} 0 obj\n<< ${object.entries} /Length ${object.stream.length} >>\nstream\n`,
        'latin1',
      ),
    );
    push(object.stream);
    push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  });
  // Each entry is exactly 20 bytes, its end of line the two bytes " \n" (§7.5.4).
  let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) xref += `${String(at).padStart(10, '0')} 00000 n \n`;
  xref += `trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R /Info ${info} 0 R >>\n`;
  xref += `startxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

/** A number as a PDF operand: integers as they are, others to `digits` decimals, no trailing zeros. */
export function pdfNumber(value: number, digits = 3): string {
  if (Number.isInteger(value)) return String(value);
  const fixed = value.toFixed(digits);
  let end = fixed.length;
  while (fixed.charCodeAt(end - 1) === 48) end--; // '0'
  if (fixed.charCodeAt(end - 1) === 46) end--; // '.'
  const text = fixed.slice(0, end);
  return text === '-0' ? '0' : text;
}

/** A PDF literal string's text, with `\`, `(` and `)` escaped (§7.3.4.2). */
export function pdfLiteral(bytes: string): string {
  return `(${bytes.replace(/[\\()]/g, '\\$&')})`;
}
