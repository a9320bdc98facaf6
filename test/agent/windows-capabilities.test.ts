import { describe, expect, it } from 'vitest';
import { WindowsBackend } from '../../agent/core/printers/windows.ts';
import {
  listCapabilitiesArguments,
  listCapabilitiesScript,
  parseWindowsCapabilities,
} from '../../agent/core/printers/windows-capabilities.ts';
import { listPrintersArguments } from '../../agent/core/printers/windows-status.ts';

/**
 * Printer capabilities through the Windows spooler (Windows faked: no Windows here): the
 * constant script's output, as PowerShell's ConvertTo-Json writes it, read into the options'
 * vocabulary; sizes in hundredths of an inch as .NET's PaperSize gives them.
 */
const laser = {
  name: 'HP LaserJet M404',
  // A4 (827 × 1169), Letter (850 × 1100), Legal (850 × 1400), an envelope (433 × 866).
  papers: [
    [827, 1169],
    [850, 1100],
    [850, 1400],
    [433, 866],
  ],
  duplex: true,
  color: false,
  copies: 999,
  resolutions: [
    [600, 600],
    [1200, 1200],
  ],
};
const receipt = {
  name: 'EPSON TM-T20',
  // 80 mm × 297 mm and 80 mm × 3276 mm rolls.
  papers: [
    [315, 1169],
    [315, 12898],
  ],
  duplex: false,
  color: false,
  copies: 1,
  resolutions: [[203, 203]],
};

describe('Windows printer capabilities (Windows faked: no Windows here)', () => {
  it("reads sizes, duplex, colour, resolutions and copies into the options' words", () => {
    const byName = parseWindowsCapabilities(JSON.stringify([laser, receipt]));
    expect(byName.get('HP LaserJet M404')).toEqual({
      paper: ['a4', 'letter', 'legal'],
      duplex: ['none', 'long-edge', 'short-edge'],
      color: ['monochrome'],
      resolution: ['600dpi', '1200dpi'],
      copies: 999,
    });
    expect(byName.get('EPSON TM-T20')).toEqual({
      paper: ['roll-80mm'],
      roll_width_mm: 80,
      duplex: ['none'],
      color: ['monochrome'],
      resolution: ['203dpi'],
      copies: 1,
    });
  });

  it('takes the single object ConvertTo-Json writes for one printer', () => {
    expect([...parseWindowsCapabilities(JSON.stringify(laser)).keys()]).toEqual([
      'HP LaserJet M404',
    ]);
  });

  it('runs the constant script, with no input, once for all printers, and adds what it says to the list', async () => {
    const calls: Array<readonly string[]> = [];
    const backend = new WindowsBackend({
      runPowerShell: async (args) => {
        calls.push(args);
        const stdout =
          args === listPrintersArguments
            ? JSON.stringify([
                { name: 'HP LaserJet M404', status: 0, status_name: 'Normal', is_default: true },
              ])
            : JSON.stringify([laser]);
        return { stdout, stderr: '' };
      },
    });
    const [printer] = await backend.listPrinters();
    expect(printer?.capabilities?.paper).toEqual(['a4', 'letter', 'legal']);
    await backend.listPrinters();
    // Kept: the second read runs Get-Printer only.
    expect(calls).toEqual([
      listPrintersArguments,
      listCapabilitiesArguments,
      listPrintersArguments,
    ]);
    const encoded =
      listCapabilitiesArguments[listCapabilitiesArguments.indexOf('-EncodedCommand') + 1]!;
    expect(Buffer.from(encoded, 'base64').toString('utf16le')).toBe(listCapabilitiesScript);
    expect(listCapabilitiesScript).toContain('System.Drawing.Printing.PrinterSettings');
    expect(listCapabilitiesScript).not.toContain('$env:');
  });

  it('lists the printers without capabilities when the script fails', async () => {
    const backend = new WindowsBackend({
      runPowerShell: async (args) => {
        if (args !== listPrintersArguments) throw new Error('System.Drawing is not there');
        return {
          stdout: JSON.stringify([
            { name: 'P', status: 0, status_name: 'Normal', is_default: false },
          ]),
          stderr: '',
        };
      },
    });
    const [printer] = await backend.listPrinters();
    expect(printer).toMatchObject({ name: 'P', state: 'idle' });
    expect(printer?.capabilities).toBeUndefined();
  });
});
