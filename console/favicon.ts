/**
 * The console's icon, drawn here as 32×32 pixels and written as a Windows icon file
 * (`favicon.ico`: one 32-bit bitmap), so that no binary file is kept in the repository and
 * nothing is fetched: a receipt on the console's dark blue, with rounded corners.
 */
const size = 32;
const blue = [0x4f, 0x32, 0x16]; // #16324f as blue, green, red
const paper = [0xff, 0xff, 0xff];
const ink = [0x87, 0x5a, 0x2c]; // #2c5a87

/** The colour and opacity of a pixel, from the top-left corner. */
function pixel(x: number, y: number): [number[], number] {
  const corner = 6;
  const cx = x < corner ? corner - x : x > size - 1 - corner ? x - (size - 1 - corner) : 0;
  const cy = y < corner ? corner - y : y > size - 1 - corner ? y - (size - 1 - corner) : 0;
  if (cx * cx + cy * cy > corner * corner) return [blue, 0];
  const onPaper = x >= 9 && x <= 22 && y >= 5 && y <= 26;
  if (!onPaper) return [blue, 255];
  // A zigzag torn edge at the bottom of the receipt.
  if (y >= 25 && (x + y) % 3 === 0) return [blue, 255];
  const line = (y === 10 || y === 14 || y === 18) && x >= 11 && x <= 20;
  const total = y === 22 && x >= 15 && x <= 20;
  return [line || total ? ink : paper, 255];
}

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  // A bitmap's rows go from the bottom up.
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const [[b = 0, g = 0, r = 0], alpha] = pixel(x, y);
      const at = ((size - 1 - y) * size + x) * 4;
      pixels.writeUInt8(b, at);
      pixels.writeUInt8(g, at + 1);
      pixels.writeUInt8(r, at + 2);
      pixels.writeUInt8(alpha, at + 3);
    }
  }
  const mask = Buffer.alloc(size * 4); // 1 bit a pixel, rows of 4 bytes: all 0, alpha decides
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // the colour bitmap and the mask, one above the other
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(6 + 16);
  directory.writeUInt16LE(1, 2); // an icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(size, 6);
  directory.writeUInt8(size, 7);
  directory.writeUInt16LE(1, 10);
  directory.writeUInt16LE(32, 12);
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(directory.length, 18);
  return Buffer.concat([directory, image]);
}
