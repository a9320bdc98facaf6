import { describe, expect, it } from 'vitest';
import { parseRouteArgument } from '../../agent/core/cli.ts';
import { parseDirectPrinter } from '../../agent/core/printers/direct-address.ts';

describe("a direct printer's address", () => {
  it.each([
    ['socket://192.168.1.50', { kind: 'socket', host: '192.168.1.50', port: 9100 }],
    ['socket://receipts.local:9101', { kind: 'socket', host: 'receipts.local', port: 9101 }],
    ['socket://[fe80::1]:9100', { kind: 'socket', host: 'fe80::1', port: 9100 }],
    ['usb:///dev/usb/lp0', { kind: 'device', path: '/dev/usb/lp0' }],
  ])('reads %s', (printer, address) => {
    expect(parseDirectPrinter(printer)).toEqual(address);
  });

  it.each([
    'socket://',
    'socket://host:0',
    'socket://host:70000',
    'socket://user@host',
    'socket://host/path',
    'socket://host?x=1',
    'usb://dev/usb/lp0',
    'usb:///dev/../etc/passwd',
  ])('refuses %s', (printer) => {
    expect(typeof parseDirectPrinter(printer)).toBe('string');
  });

  it('--route takes a socket:// printer and refuses a malformed one', () => {
    expect(parseRouteArgument('receipts=socket://192.168.1.50:9100', 'linux')).toEqual({
      name: 'receipts',
      printer: 'socket://192.168.1.50:9100',
    });
    expect(parseRouteArgument('receipts=usb:///dev/usb/lp0', 'linux').printer).toBe(
      'usb:///dev/usb/lp0',
    );
    expect(() => parseRouteArgument('receipts=socket://host:99999', 'linux')).toThrow(
      /port of "socket:\/\/host:99999" must be 1 to 65535/,
    );
    expect(() => parseRouteArgument('receipts=usb:///dev/usb/lp0', 'win32')).toThrow(/Linux only/);
  });
});
