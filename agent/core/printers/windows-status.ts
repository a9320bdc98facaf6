import { z } from 'zod';
import type { PrinterInfo } from '../../../shared/printing.ts';
import type { PrinterStatus } from './printer-status.ts';

/**
 * The Windows printers and their state: `Get-Printer` (PrintManagement) in a PowerShell
 * script that is a constant of this file, as the raw print script is (windows.ts). It takes
 * no input at all. The default printer is read from the user's registry (`Device` is
 * `name,winspool,port`; Windows printer names have no comma), which costs less than a CIM
 * query.
 */
export const listPrintersScript = String.raw`$ErrorActionPreference = 'Stop'
[Console]::OutputEncoding = [System.Text.Encoding]::UTF8
$default = $null
$device = (Get-ItemProperty -Path 'HKCU:\Software\Microsoft\Windows NT\CurrentVersion\Windows' -Name Device -ErrorAction SilentlyContinue).Device
if ($device) { $default = $device.Split(',')[0] }
$printers = @(Get-Printer | ForEach-Object {
  [pscustomobject]@{
    name = [string]$_.Name
    status = [uint32]$_.PrinterStatus
    status_name = [string]$_.PrinterStatus
    is_default = ([string]$_.Name -eq $default)
  }
})
[Console]::Out.Write((ConvertTo-Json -InputObject $printers -Compress))
`;

export const listPrintersArguments: readonly string[] = [
  '-NoProfile',
  '-NonInteractive',
  '-ExecutionPolicy',
  'Bypass',
  '-EncodedCommand',
  Buffer.from(listPrintersScript, 'utf16le').toString('base64'),
];

/**
 * The spooler's PRINTER_STATUS_* bits (MS-RPRN §2.2.3.12), which `Get-Printer`'s
 * PrinterStatus carries, with what each means here: the state it forces and the IPP
 * keyword (RFC 8011 §5.4.12) closest to it. docs/agent.md has this table for readers.
 */
export const windowsStatusBits: ReadonlyArray<{
  bit: number;
  name: string;
  state: 'stopped' | 'offline' | 'printing' | 'unknown' | null;
  reason: string | null;
}> = [
  { bit: 0x1, name: 'Paused', state: 'stopped', reason: 'paused' },
  { bit: 0x2, name: 'Error', state: 'stopped', reason: 'other-error' },
  { bit: 0x4, name: 'PendingDeletion', state: 'stopped', reason: 'shutdown' },
  { bit: 0x8, name: 'PaperJam', state: 'stopped', reason: 'media-jam-error' },
  { bit: 0x10, name: 'PaperOut', state: 'stopped', reason: 'media-empty-error' },
  { bit: 0x20, name: 'ManualFeed', state: null, reason: 'media-needed-report' },
  { bit: 0x40, name: 'PaperProblem', state: 'stopped', reason: 'other-error' },
  { bit: 0x80, name: 'Offline', state: 'offline', reason: 'offline-report' },
  { bit: 0x100, name: 'IOActive', state: 'printing', reason: null },
  { bit: 0x200, name: 'Busy', state: 'printing', reason: null },
  { bit: 0x400, name: 'Printing', state: 'printing', reason: null },
  { bit: 0x800, name: 'OutputBinFull', state: 'stopped', reason: 'output-area-full-error' },
  { bit: 0x1000, name: 'NotAvailable', state: 'offline', reason: 'offline-report' },
  { bit: 0x2000, name: 'Waiting', state: null, reason: null },
  { bit: 0x4000, name: 'Processing', state: 'printing', reason: null },
  { bit: 0x8000, name: 'Initializing', state: null, reason: null },
  { bit: 0x10000, name: 'WarmingUp', state: null, reason: null },
  { bit: 0x20000, name: 'TonerLow', state: null, reason: 'toner-low-warning' },
  { bit: 0x40000, name: 'NoToner', state: 'stopped', reason: 'toner-empty-error' },
  { bit: 0x80000, name: 'PagePunt', state: null, reason: 'other-warning' },
  { bit: 0x100000, name: 'UserIntervention', state: 'stopped', reason: 'other-error' },
  {
    bit: 0x200000,
    name: 'OutOfMemory',
    state: 'stopped',
    reason: 'interpreter-resource-unavailable-error',
  },
  { bit: 0x400000, name: 'DoorOpen', state: 'stopped', reason: 'door-open-error' },
  { bit: 0x800000, name: 'ServerUnknown', state: 'unknown', reason: null },
  { bit: 0x1000000, name: 'PowerSave', state: null, reason: null },
];

const bitByName = new Map(windowsStatusBits.map((entry) => [entry.name, entry.bit]));
/** Stopped wins, as on CUPS: a paused queue does not print when the device comes back. */
const statePrecedence = ['stopped', 'offline', 'printing', 'unknown'] as const;

/**
 * PrinterStatus as the script reads it: its enum names one bit at a time (`PaperOut`), so a
 * combination (offline and out of paper) comes as a bare number (`144`). The name is read
 * when it is one, else the number's bits.
 */
export function windowsPrinterStatus(status: number, statusName: string): PrinterStatus {
  const bits = statusName === 'Normal' ? 0 : (bitByName.get(statusName) ?? status);
  const matched = windowsStatusBits.filter((entry) => (bits & entry.bit) !== 0);
  const states = new Set(matched.map((entry) => entry.state));
  const reasons = [
    ...new Set(matched.map((entry) => entry.reason).filter((reason) => reason !== null)),
  ];
  return {
    state: statePrecedence.find((state) => states.has(state)) ?? 'idle',
    reasons,
    // A queue being deleted takes no new job; otherwise Windows has no such notion.
    accepting_jobs: (bits & 0x4) !== 0 ? false : null,
    message: null,
  };
}

const scriptOutput = z.array(
  z.object({
    name: z.string(),
    status: z.number().int().min(0),
    status_name: z.string(),
    is_default: z.boolean(),
  }),
);

/** The script's JSON; a printer name too long for the contract is left out. */
export function parseWindowsPrinters(stdout: string): PrinterInfo[] {
  const text = stdout.trim();
  const parsed = scriptOutput.parse(JSON.parse(text === '' ? '[]' : text));
  return parsed
    .filter((printer) => printer.name.length >= 1 && printer.name.length <= 255)
    .map((printer) => ({
      name: printer.name,
      is_default: printer.is_default,
      ...windowsPrinterStatus(printer.status, printer.status_name),
    }));
}
