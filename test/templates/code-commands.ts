/**
 * A small reader of the printer commands that carry a barcode's or QR code's data, to check
 * where each command ends. Each reader starts at the command's first byte and answers its
 * extent (`end`, the index after its last byte) and the data it carries.
 *
 * - ESC/POS (Epson's ESC/POS command reference): `GS k m d1…dk NUL` for m 0–6 (the data ends
 *   at NUL), `GS k m n d1…dn` for m 65–79 (n bytes, counted); `GS ( k pL pH cn fn …` for
 *   2D codes, pL + 256·pH bytes after pH, the store function (cn 49, fn 80: `1P0`) carrying
 *   the QR data after its `m` byte.
 * - StarPRNT (Star's StarPRNT command specification): `ESC b n1 n2 n3 n4 d1…dk RS`, the data
 *   ending at the first RS (0x1E); `ESC GS S m xL xH yL yH n d1…dk`, a raster image of
 *   (xL + 256·xH)·(yL + 256·yH) bytes (ReceiptLine draws a StarPRNT QR code so).
 * - ZPL (Zebra's ZPL II programming guide): a field's data follows `^FD` up to the next
 *   command prefix (`^` or `~`), which must be the field's `^FS`; under `^FH_` each `_XX`
 *   is the byte XX.
 */

export interface CommandExtent {
  /** Index after the command's last byte. */
  end: number;
  /** The bytes the command carries as data. */
  data: Buffer;
}

const GS = 0x1d;
const ESC = 0x1b;
const RS = 0x1e;

function expectBytes(bytes: Buffer, at: number, expected: number[], what: string): void {
  const actual = [...bytes.subarray(at, at + expected.length)];
  if (actual.join() !== expected.join()) {
    throw new Error(`${what} expected at ${at}: ${expected} but found ${actual}`);
  }
}

/** ESC/POS `GS k`: NUL-terminated (m 0–6) or counted (m 65 and up). */
export function readEscposBarcode(bytes: Buffer, at: number): CommandExtent & { m: number } {
  expectBytes(bytes, at, [GS, 0x6b], 'GS k');
  const m = bytes[at + 2]!;
  if (m <= 6) {
    const nul = bytes.indexOf(0, at + 3);
    if (nul < 0) throw new Error('GS k without its NUL');
    return { m, end: nul + 1, data: bytes.subarray(at + 3, nul) };
  }
  const n = bytes[at + 3]!;
  if (at + 4 + n > bytes.length) throw new Error('GS k runs past the end');
  return { m, end: at + 4 + n, data: bytes.subarray(at + 4, at + 4 + n) };
}

/** ESC/POS `GS ( k pL pH cn fn …`: one 2D-code function. */
export function readEscpos2d(
  bytes: Buffer,
  at: number,
): CommandExtent & { cn: number; fn: number } {
  expectBytes(bytes, at, [GS, 0x28, 0x6b], 'GS ( k');
  const length = bytes[at + 3]! + 256 * bytes[at + 4]!;
  const end = at + 5 + length;
  if (end > bytes.length) throw new Error('GS ( k runs past the end');
  const cn = bytes[at + 5]!;
  const fn = bytes[at + 6]!;
  // The store function's parameter m (`0`) comes before the data.
  const data = fn === 80 ? bytes.subarray(at + 8, end) : bytes.subarray(at + 7, end);
  return { end, data, cn, fn };
}

/** StarPRNT `ESC b n1 n2 n3 n4 d… RS`. */
export function readStarBarcode(bytes: Buffer, at: number): CommandExtent & { n1: number } {
  expectBytes(bytes, at, [ESC, 0x62], 'ESC b');
  const rs = bytes.indexOf(RS, at + 6);
  if (rs < 0) throw new Error('ESC b without its RS');
  return { n1: bytes[at + 2]!, end: rs + 1, data: bytes.subarray(at + 6, rs) };
}

/** StarPRNT `ESC GS S m xL xH yL yH n d1…dk`: a raster image. */
export function readStarRaster(bytes: Buffer, at: number): CommandExtent {
  expectBytes(bytes, at, [ESC, GS, 0x53], 'ESC GS S');
  const x = bytes[at + 4]! + 256 * bytes[at + 5]!;
  const y = bytes[at + 6]! + 256 * bytes[at + 7]!;
  const end = at + 9 + x * y;
  if (end > bytes.length) throw new Error('ESC GS S runs past the end');
  return { end, data: bytes.subarray(at + 9, end) };
}

/**
 * The data of an ESC/POS Code 128 (`GS k 73`) as text: `{A`, `{B`, `{C` choose a code set,
 * `{S` shifts one character, `{{` is `{`; in code set C each byte is two digits.
 */
export function decodeEscposCode128(data: Buffer): string {
  let out = '';
  let set = '';
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte === 0x7b) {
      const next = String.fromCharCode(data[++i]!);
      if (next === '{') out += '{';
      else if (next === 'S') out += String.fromCharCode(data[++i]!);
      else set = next;
    } else {
      out += set === 'C' ? String(byte).padStart(2, '0') : String.fromCharCode(byte);
    }
  }
  return out;
}

/** The data of a StarPRNT Code 128 as text: `%0` is `%`, `%5` DEL, `%X` a control character. */
export const decodeStarCode128 = (data: Buffer) =>
  data
    .toString('latin1')
    .replace(/%(.)/g, (_, c: string) =>
      c === '0' ? '%' : c === '5' ? '\x7f' : String.fromCharCode(c.charCodeAt(0) - 64),
    );

/** A ZPL field from its `^FD`: the data (its `^FH_` escapes decoded) up to its `^FS`. */
export function readZplField(zpl: string, at: number): CommandExtent {
  if (zpl.slice(at, at + 3) !== '^FD') throw new Error(`^FD expected at ${at}`);
  const next = zpl.slice(at + 3).search(/[\^~]/);
  if (next < 0) throw new Error('^FD without its ^FS');
  const close = at + 3 + next;
  if (zpl.slice(close, close + 3) !== '^FS') {
    throw new Error(`the field ends with ${zpl.slice(close, close + 3)}, not ^FS`);
  }
  const raw = Buffer.from(zpl.slice(at + 3, close), 'utf8').toString('latin1');
  const data = Buffer.from(
    raw.replace(/_([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    ),
    'latin1',
  );
  return { end: close + 3, data };
}
