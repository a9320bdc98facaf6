/**
 * Where a printer reached directly is (docs/agent.md, "Printers reached directly"):
 *
 * - `socket://HOST[:PORT]`: a network printer's raw port (AppSocket / JetDirect), 9100 by
 *   default; HOST is a name, an IPv4 address or a bracketed IPv6 address;
 * - `usb:///dev/usb/lp0`: a USB printer's device file (Linux's usblp driver), read and written
 *   as one duplex stream; the path is absolute.
 *
 * Neither is a printer of the operating system: a route names one only in this PC's own
 * configuration, never from the server (runtime/server-routes.ts).
 */

export const socketPrinterPrefix = 'socket://';
export const usbPrinterPrefix = 'usb://';
export const defaultRawPort = 9100;

export type DirectAddress =
  | { kind: 'socket'; host: string; port: number }
  | { kind: 'device'; path: string };

export function isDirectPrinter(printer: string): boolean {
  return printer.startsWith(socketPrinterPrefix) || printer.startsWith(usbPrinterPrefix);
}

const hostName =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const ipv6 = /^[0-9A-Fa-f:.]{2,45}$/;

/**
 * The place a direct printer's name says, or why it is not one, in words for the person who
 * typed it. Nothing after the host and port is allowed: a path, a query or credentials in the
 * name would be silently dropped by a raw port, so they are refused.
 */
export function parseDirectPrinter(printer: string): DirectAddress | string {
  if (printer.startsWith(socketPrinterPrefix)) {
    const rest = printer.slice(socketPrinterPrefix.length);
    const match = /^(\[[^\]]*\]|[^:/?#@[\]]+)(?::(\d{1,5}))?\/?$/.exec(rest);
    const example = 'as in socket://192.168.1.50 or socket://receipts.local:9100';
    if (!match) return `"${printer}" is not socket://HOST[:PORT], ${example}`;
    const [, bracketed = '', portText] = match;
    const host = bracketed.startsWith('[') ? bracketed.slice(1, -1) : bracketed;
    const hostOk = bracketed.startsWith('[') ? ipv6.test(host) : hostName.test(host);
    if (!hostOk) return `"${host}" in "${printer}" is not a host name or address, ${example}`;
    const port = portText === undefined ? defaultRawPort : Number(portText);
    if (port < 1 || port > 65535) return `the port of "${printer}" must be 1 to 65535`;
    return { kind: 'socket', host, port };
  }
  if (printer.startsWith(usbPrinterPrefix)) {
    const path = printer.slice(usbPrinterPrefix.length);
    if (!path.startsWith('/') || path.includes('\0') || path.split('/').includes('..')) {
      return `"${printer}" is not usb:// and an absolute device path, as in usb:///dev/usb/lp0`;
    }
    return { kind: 'device', path };
  }
  return `"${printer}" is not a direct printer (socket://HOST[:PORT] or usb:///dev/usb/lpN)`;
}

/** `192.168.1.50:9100`, `/dev/usb/lp0`: the place in a message. */
export function describeAddress(address: DirectAddress): string {
  if (address.kind === 'device') return address.path;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}
