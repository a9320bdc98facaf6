import { describe, expect, it } from 'vitest';
import { languagesFromIpp } from '../../agent/core/printers/cups-capabilities.ts';
import { profileMisfit } from '../../shared/profile-fit.ts';
import { routeWaitReason } from '../../shared/wait-reasons.ts';

/** Profiles that fit their printer (docs/printing.md, "Profiles that fit their printer"). */
describe('profileMisfit', () => {
  const pdfQueue = {
    name: 'PDF',
    capabilities: { languages: ['pdf', 'text'] as Array<'pdf' | 'text' | 'escpos'> },
  };
  const receipt = { name: 'TM', capabilities: { languages: ['escpos'] as Array<'escpos'> } };

  it.each([
    ['escpos', pdfQueue, 'misconfigured: PDF takes PDF, the profile says ESC/POS'],
    ['zpl', receipt, 'misconfigured: TM takes ESC/POS, the profile says ZPL'],
    ['pdf', receipt, 'misconfigured: TM takes ESC/POS, the profile says PDF'],
    ['pdf', pdfQueue, null],
    ['text', pdfQueue, null],
    ['text', receipt, null],
    ['escpos', receipt, null],
  ] as const)('a %s profile on %o: %s', (language, printer, expected) => {
    expect(profileMisfit({ language }, printer)).toBe(expected);
  });

  it('checks nothing without a profile or without the languages', () => {
    expect(profileMisfit(null, pdfQueue)).toBeNull();
    expect(profileMisfit({ language: 'escpos' }, { name: 'X' })).toBeNull();
  });

  it('makes the route wait, printer_misconfigured, unless a backup printer fits', () => {
    const printers = [
      {
        ...pdfQueue,
        is_default: false,
        state: 'idle' as const,
        reasons: [],
        accepting_jobs: true,
        message: null,
      },
      {
        ...receipt,
        is_default: false,
        state: 'idle' as const,
        reasons: [],
        accepting_jobs: true,
        message: null,
      },
    ];
    const route = { printer: 'PDF', profile: { language: 'escpos' as const } };
    expect(routeWaitReason(route, printers)).toEqual({
      code: 'printer_misconfigured',
      message: 'misconfigured: PDF takes PDF, the profile says ESC/POS',
    });
    expect(routeWaitReason({ ...route, backup_printers: ['TM'] }, printers)).toBeNull();
  });
});

describe('languagesFromIpp: what a CUPS queue takes', () => {
  const formats = [
    'application/octet-stream',
    'application/pdf',
    'application/vnd.cups-raw',
    'text/plain',
  ];
  it.each([
    ['Generic CUPS-PDF Printer (w/ options)', ['pdf', 'text']],
    ['HP LaserJet Pro M404 Postscript', ['pdf', 'text']],
    ['Local Raw Printer', undefined],
    ['EPSON TM-T20II Receipt', undefined],
    ['Zebra ZPL Label Printer', undefined],
  ])('%s: %o', (model, expected) => {
    expect(
      languagesFromIpp({
        'printer-make-and-model': [model],
        'document-format-supported': formats,
      }),
    ).toEqual(expected);
  });
});
