import { afterEach, describe, expect, it } from 'vitest';
import { DirectBackend } from '../../agent/core/printers/direct.ts';
import { EscposSimulator } from '../helpers/printer-simulators/escpos.ts';
import { fakeUsbDevice } from '../helpers/system-programs.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a USB printer as a device file (usb://PATH), faked by a pseudo-terminal', () => {
  it('reads its state, prints and confirms through the same ESC/POS code', async () => {
    const printer = await new EscposSimulator().start();
    cleanups.push(() => printer.stop());
    const device = await fakeUsbDevice(printer.port);
    cleanups.push(device.stop);
    const name = `usb://${device.path}`;
    const backend = new DirectBackend({ languageOf: () => 'escpos', confirmTimeoutMs: 3000 });

    expect(await backend.listPrinters([name])).toEqual([
      expect.objectContaining({ name, state: 'idle', capabilities: { languages: ['escpos'] } }),
    ]);
    const receipt = Buffer.from('\x1b@USB receipt\n\x1dVB\x00', 'latin1');
    const outcome = await backend.print(
      { id: 1, title: 'usb', content_type: 'application/vnd.escpos', copies: 1 },
      receipt,
      name,
      {},
    );
    expect(outcome).toEqual({ ok: true, printer: name, spoolerJobId: null });
    expect(printer.printedBuffer().equals(receipt)).toBe(true);

    printer.set({ paperEnd: true });
    const [info] = await backend.listPrinters([name]);
    expect(info).toMatchObject({
      state: 'stopped',
      reasons: ['media-empty-error', 'offline-report'],
    });
  });

  it('a device file that is not there: offline, and a job known not printed', async () => {
    const name = 'usb:///dev/usb/lp-not-here';
    const backend = new DirectBackend({ languageOf: () => 'escpos' });
    const [info] = await backend.listPrinters([name]);
    expect(info).toMatchObject({ state: 'offline', reasons: ['offline-report'] });
    expect(info?.message).toContain('cannot open /dev/usb/lp-not-here');
    const outcome = await backend.print(
      { id: 1, title: 'usb', content_type: 'application/vnd.escpos', copies: 1 },
      Buffer.from('x'),
      name,
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'printer_unreachable', printed: 'no' });
  });
});
