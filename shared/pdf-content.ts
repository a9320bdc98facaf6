/**
 * Whether content sent as `application/pdf` is one: a PDF starts with `%PDF-` (ISO 32000-2
 * §7.5.2). A spooler given anything else prints garbage or nothing, far from the caller and
 * long after its request succeeded. ZPL, ESC/POS and text have no header to check.
 */
export function startsAsPdf(content: Uint8Array): boolean {
  const magic = [0x25, 0x50, 0x44, 0x46, 0x2d];
  return magic.every((byte, index) => content[index] === byte);
}
