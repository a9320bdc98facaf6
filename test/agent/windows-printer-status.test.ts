import { describe, expect, it } from 'vitest';
import { WindowsBackend } from '../../agent/core/printers/windows.ts';
import {
  listPrintersArguments,
  listPrintersScript,
  windowsPrinterStatus,
} from '../../agent/core/printers/windows-status.ts';

/** Get-Printer's output as the constant script prints it (ConvertTo-Json -Compress). */
function scriptOutput(
  printers: Array<{ name: string; status: number; status_name: string; is_default: boolean }>,
) {
  return JSON.stringify(printers);
}

describe('Windows printer states (Windows faked: no Windows here)', () => {
  it('runs the constant Get-Printer script, with no input from anywhere', async () => {
    const calls: Array<{ args: readonly string[]; env: Record<string, string> }> = [];
    const backend = new WindowsBackend({
      runPowerShell: async (args, env) => {
        calls.push({ args, env });
        return {
          stdout: scriptOutput([
            { name: 'EPSON TM-T20', status: 0, status_name: 'Normal', is_default: true },
            { name: 'Zebra ZD421', status: 16, status_name: 'PaperOut', is_default: false },
            { name: 'Büro Laser', status: 144, status_name: '144', is_default: false },
          ]),
          stderr: '',
        };
      },
    });
    expect(await backend.listPrinters()).toEqual([
      {
        name: 'EPSON TM-T20',
        is_default: true,
        state: 'idle',
        reasons: [],
        accepting_jobs: null,
        message: null,
      },
      {
        name: 'Zebra ZD421',
        is_default: false,
        state: 'stopped',
        reasons: ['media-empty-error'],
        accepting_jobs: null,
        message: null,
      },
      {
        name: 'Büro Laser',
        is_default: false,
        state: 'stopped',
        reasons: ['media-empty-error', 'offline-report'],
        accepting_jobs: null,
        message: null,
      },
    ]);
    // Then the capabilities script (windows-capabilities.test.ts), which this fake does not play.
    expect(calls[0]).toEqual({ args: listPrintersArguments, env: {} });
    const encoded = listPrintersArguments[listPrintersArguments.indexOf('-EncodedCommand') + 1]!;
    expect(Buffer.from(encoded, 'base64').toString('utf16le')).toBe(listPrintersScript);
    expect(listPrintersScript).toContain('Get-Printer');
    expect(listPrintersScript).not.toContain('$env:');
  });

  it('answers an empty list when the PC has no printer', async () => {
    const backend = new WindowsBackend({ runPowerShell: async () => ({ stdout: '', stderr: '' }) });
    expect(await backend.listPrinters()).toEqual([]);
  });

  it("throws, with PowerShell's first error line, when Get-Printer fails", async () => {
    const backend = new WindowsBackend({
      runPowerShell: async () => {
        throw Object.assign(new Error('exit 1'), {
          stderr: 'Get-Printer : The spooler service is not reachable.\r\nAt line:1',
        });
      },
    });
    await expect(backend.listPrinters()).rejects.toThrow(
      'Get-Printer failed: Get-Printer : The spooler service is not reachable.',
    );
  });

  // PrinterStatus names one bit at a time; a combination comes as its number.
  describe.each([
    [0, 'Normal', 'idle', []],
    [1, 'Paused', 'stopped', ['paused']],
    [2, 'Error', 'stopped', ['other-error']],
    [8, 'PaperJam', 'stopped', ['media-jam-error']],
    [16, 'PaperOut', 'stopped', ['media-empty-error']],
    [128, 'Offline', 'offline', ['offline-report']],
    [1024, 'Printing', 'printing', []],
    [4096, 'NotAvailable', 'offline', ['offline-report']],
    [131072, 'TonerLow', 'idle', ['toner-low-warning']],
    [4194304, 'DoorOpen', 'stopped', ['door-open-error']],
    [8388608, 'ServerUnknown', 'unknown', []],
    [16777216, 'PowerSave', 'idle', []],
    [144, '144', 'stopped', ['media-empty-error', 'offline-report']],
    [1152, '1152', 'offline', ['offline-report']],
    [132096, '132096', 'printing', ['toner-low-warning']],
  ] as const)('PrinterStatus %i (%s)', (status, name, state, reasons) => {
    it(`is ${state} with [${reasons.join(', ')}]`, () => {
      expect(windowsPrinterStatus(status, name)).toEqual({
        state,
        reasons,
        accepting_jobs: null,
        message: null,
      });
    });
  });

  it('reads a name rather than the number when the enum gives one', () => {
    // Should the enum number its values 0, 1, 2 … rather than by bit, the name still holds.
    expect(windowsPrinterStatus(5, 'PaperOut')).toMatchObject({
      state: 'stopped',
      reasons: ['media-empty-error'],
    });
  });

  it('says a queue being deleted takes no new job', () => {
    expect(windowsPrinterStatus(4, 'PendingDeletion')).toEqual({
      state: 'stopped',
      reasons: ['shutdown'],
      accepting_jobs: false,
      message: null,
    });
  });
});
