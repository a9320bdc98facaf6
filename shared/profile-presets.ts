import type { PrinterCapabilities } from './printer-capabilities.ts';
import type { PrinterProfile } from './printer-profiles.ts';
import { languageWords } from './profile-fit.ts';

/**
 * The printer profiles people pick by name (the console's routes editor, docs/console.md
 * "Printer profiles"): the common receipt, sheet and label printers. Anything else is set in
 * detail. Plain data, no zod: the console bundles it (the lists below are printer-profiles.ts's,
 * kept in step by their types).
 */
export const profileLanguages: ReadonlyArray<PrinterProfile['language']> = [
  'escpos',
  'starprnt',
  'zpl',
  'pdf',
  'text',
  'epos',
];
export const profileRollWidths = [58, 80, 112] as const;
export const profileSheetSizes: ReadonlyArray<Extract<PrinterProfile['width_mm'], string>> = [
  'a4',
  'a5',
  'letter',
  'legal',
];

export const profilePresets: ReadonlyArray<{ label: string; profile: PrinterProfile }> = [
  { label: '80 mm receipt, ESC/POS', profile: { language: 'escpos', width_mm: 80, cut: true } },
  { label: '58 mm receipt', profile: { language: 'escpos', width_mm: 58, cut: true } },
  { label: 'A4 PDF', profile: { language: 'pdf', width_mm: 'a4' } },
  { label: '4×6 in label, ZPL 203 dpi', profile: { language: 'zpl', width_mm: 102, dpi: 203 } },
];

/** The preset a profile is, by value, or undefined. */
export function presetOf(profile: PrinterProfile | undefined): string | undefined {
  if (!profile) return undefined;
  const same = (a: object, b: object) =>
    JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
  return profilePresets.find((preset) => same(preset.profile, profile))?.label;
}

/** `80 mm receipt, ESC/POS`, or in detail: `ZPL, 100 mm, 300 dpi, cuts`. */
export function profileInWords(profile: PrinterProfile | undefined): string {
  if (!profile) return 'no profile: prints what it is sent';
  const preset = presetOf(profile);
  if (preset) return preset;
  const width = profile.width_mm;
  return [
    languageWords[profile.language],
    width === undefined ? null : typeof width === 'number' ? `${width} mm` : width.toUpperCase(),
    profile.dpi ? `${profile.dpi} dpi` : null,
    profile.columns ? `${profile.columns} columns` : null,
    profile.cut ? 'cuts' : null,
    profile.drawer ? 'opens the drawer' : null,
    profile.codepage ?? null,
  ]
    .filter(Boolean)
    .join(', ');
}

/** What a printer said it takes, in words: `A4, Letter · two-sided · colour · 99 copies`. */
export function capabilitiesInWords(capabilities: PrinterCapabilities | undefined): string {
  if (!capabilities) return 'not reported';
  const parts = [
    capabilities.paper?.length ? `paper ${capabilities.paper.join(', ')}` : null,
    capabilities.roll_width_mm ? `${capabilities.roll_width_mm} mm roll` : null,
    capabilities.languages?.length
      ? capabilities.languages.map((language) => languageWords[language]).join(', ')
      : null,
    capabilities.duplex?.some((mode) => mode !== 'none') ? 'two-sided' : null,
    capabilities.color?.includes('color') ? 'colour' : null,
    capabilities.copies ? `up to ${capabilities.copies} copies` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'not reported';
}
