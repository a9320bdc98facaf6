import { describe, expect, it } from 'vitest';
import { lpArguments } from '../../agent/core/printers/cups.ts';
import { pdfPrintOptions } from '../../agent/core/printers/windows.ts';

/** The options added for fleets (colour, more paper sizes, rolls) as each back-end asks for them. */
const job = { id: 1, title: 'Doc', content_type: 'application/pdf' as const, copies: 1 };

describe('colour and paper for lp', () => {
  it.each([
    [{ color: 'monochrome' }, ['-o', 'print-color-mode=monochrome']],
    [{ color: 'color' }, ['-o', 'print-color-mode=color']],
    [{ paper: 'a3' }, ['-o', 'media=A3']],
    [{ paper: 'b5' }, ['-o', 'media=iso_b5_176x250mm']],
    [{ paper: 'executive' }, ['-o', 'media=Executive']],
  ] as const)('%j → %j', (options, expected) => {
    const args = lpArguments(job, 'Q', options, '/tmp/f');
    expect(args.slice(6, 8)).toEqual(expected);
  });

  it('asks for no media for a roll: the printer prints on the roll it has (its width was checked)', () => {
    expect(lpArguments(job, 'Q', { paper: 'roll-80mm' }, '/tmp/f').join(' ')).not.toContain(
      'media',
    );
  });
});

describe('colour and paper for SumatraPDF (Windows faked: no Windows here)', () => {
  it('maps colour to monochrome on or off, and the new sizes by name', () => {
    expect(pdfPrintOptions(job, 'P', { color: 'monochrome', paper: 'a3' }, 'S.exe')).toMatchObject({
      monochrome: true,
      paperSize: 'A3',
    });
    expect(pdfPrintOptions(job, 'P', { color: 'color' }, 'S.exe')).toMatchObject({
      monochrome: false,
    });
    expect(pdfPrintOptions(job, 'P', { paper: 'roll-58mm' }, 'S.exe')).not.toHaveProperty(
      'paperSize',
    );
  });
});
