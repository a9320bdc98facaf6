import { z } from 'zod';
import type { PrinterCapabilities } from '../../../shared/printer-capabilities.ts';
import { paperCapabilities } from './media-sizes.ts';

/**
 * What each Windows printer can do, from the spooler: .NET's PrinterSettings asks the driver
 * through winspool's DeviceCapabilities (paper sizes in hundredths of an inch, duplex, colour,
 * resolutions, copies). A script that is a constant of this file, taking no input, like
 * Get-Printer's (windows-status.ts); one PowerShell start for all the printers.
 */
// biome-ignore lint/complexity/noUselessStringRaw: PowerShell source; String.raw keeps any backslash a later edit adds exactly as written.
export const listCapabilitiesScript = String.raw`$ErrorActionPreference = 'Stop'
[Console]::OutputEncoding = [System.Text.Encoding]::UTF8
Add-Type -AssemblyName System.Drawing
$printers = @([System.Drawing.Printing.PrinterSettings]::InstalledPrinters | ForEach-Object {
  $settings = New-Object System.Drawing.Printing.PrinterSettings
  $settings.PrinterName = $_
  if (-not $settings.IsValid) { return }
  [pscustomobject]@{
    name = [string]$_
    papers = @($settings.PaperSizes | ForEach-Object { @([int]$_.Width, [int]$_.Height) })
    duplex = [bool]$settings.CanDuplex
    color = [bool]$settings.SupportsColor
    copies = [int]$settings.MaximumCopies
    resolutions = @($settings.PrinterResolutions | Where-Object { $_.X -gt 0 } | ForEach-Object { @([int]$_.X, [int]$_.Y) })
  }
})
[Console]::Out.Write((ConvertTo-Json -InputObject $printers -Compress -Depth 4))
`;

export const listCapabilitiesArguments: readonly string[] = [
  '-NoProfile',
  '-NonInteractive',
  '-ExecutionPolicy',
  'Bypass',
  '-EncodedCommand',
  Buffer.from(listCapabilitiesScript, 'utf16le').toString('base64'),
];

const pair = z.array(z.number()).length(2);
const scriptOutput = z.array(
  z.object({
    name: z.string(),
    papers: z.array(pair),
    duplex: z.boolean(),
    color: z.boolean(),
    copies: z.number().int(),
    resolutions: z.array(pair),
  }),
);

/** The script's JSON → capabilities by printer name, in the options' vocabulary. */
export function parseWindowsCapabilities(stdout: string): Map<string, PrinterCapabilities> {
  const text = stdout.trim();
  const json = JSON.parse(text === '' ? '[]' : text);
  // ConvertTo-Json writes a one-element array as the element itself.
  const printers = scriptOutput.parse(Array.isArray(json) ? json : [json]);
  const byName = new Map<string, PrinterCapabilities>();
  for (const printer of printers) {
    // Hundredths of an inch → millimetres.
    const media = printer.papers.map(([w, h]) => [w! * 0.254, h! * 0.254] as [number, number]);
    const resolutions = [
      ...new Set(printer.resolutions.map(([x, y]) => (x === y ? `${x}dpi` : `${x}x${y}dpi`))),
    ].slice(0, 32);
    byName.set(printer.name, {
      ...paperCapabilities(media),
      duplex: printer.duplex ? ['none', 'long-edge', 'short-edge'] : ['none'],
      color: printer.color ? ['color', 'monochrome'] : ['monochrome'],
      ...(resolutions.length > 0 && { resolution: resolutions }),
      ...(printer.copies >= 1 && { copies: Math.min(printer.copies, 1_000_000) }),
    });
  }
  return byName;
}
