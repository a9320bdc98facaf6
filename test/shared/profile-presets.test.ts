import { describe, expect, it } from 'vitest';
import {
  printerLanguages,
  printerProfileSchema,
  rollWidths,
  sheetSizes,
} from '../../shared/printer-profiles.ts';
import {
  profileInWords,
  profileLanguages,
  profilePresets,
  profileRollWidths,
  profileSheetSizes,
} from '../../shared/profile-presets.ts';

/**
 * The presets the console offers for a route's printer (shared/profile-presets.ts): plain
 * data, so the console's bundle has no zod; kept in step with the schema here.
 */
describe('printer profile presets', () => {
  it.each(profilePresets.map((preset) => [preset.label, preset.profile]))(
    '%s is a profile the server takes',
    (_label, profile) => {
      expect(printerProfileSchema.parse(profile)).toEqual(profile);
    },
  );

  it('lists the languages, roll widths and sheet sizes of the schema', () => {
    expect(profileLanguages).toEqual(printerLanguages);
    expect(profileRollWidths).toEqual(rollWidths);
    expect(profileSheetSizes).toEqual(sheetSizes);
  });

  it('names a preset by its label, and any other profile in detail', () => {
    expect(profileInWords({ language: 'escpos', width_mm: 80, cut: true })).toBe(
      '80 mm receipt, ESC/POS',
    );
    expect(profileInWords({ language: 'zpl', width_mm: 100, dpi: 300 })).toBe(
      'ZPL, 100 mm, 300 dpi',
    );
    expect(profileInWords(undefined)).toBe('no profile: prints what it is sent');
  });
});
