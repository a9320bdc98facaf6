import { describe, expect, it } from 'vitest';
import { InvalidFields } from '../../server/domain-errors.ts';
import { drawLimitMs, labelSize } from '../../server/templates/render/label-png.ts';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { darkIn, type Grey, greyOf } from './png-pixels.ts';

/**
 * A label template's PNG preview: its ZPL (after Liquid, data hex-escaped behind ^FH) drawn
 * by zpl-renderer-js (server/templates/render/label-png.ts), one pixel a printer dot. The
 * pixels are checked where the ZPL's own coordinates (in dots) put a box or a field.
 */

const label50: PrinterProfile = { language: 'zpl', width_mm: 50 };
const label = (source: string) => ({ kind: 'label' as const, source });
const png = async (source: string, data: object = {}, profile: PrinterProfile = label50) => {
  const { contentType, bytes } = await renderDocument(label(source), data, profile, 'png');
  expect(contentType).toBe('image/png');
  return greyOf(bytes);
};

describe('a label as a PNG', () => {
  it('is as wide as the label in dots: 50 mm is 400 at 203 dpi, 591 at 300 dpi; 30 mm long by default', async () => {
    const at203 = await png('^XA^FO10,10^GB20,20,20^FS^XZ');
    expect([at203.width, at203.height]).toEqual([400, 240]);
    const at300 = await png('^XA^FO10,10^GB20,20,20^FS^XZ', {}, { ...label50, dpi: 300 });
    expect([at300.width, at300.height]).toEqual([591, 354]);
    const wide = await png('^XA^XZ', {}, { language: 'zpl', width_mm: 100 });
    expect(wide.width).toBe(799); // as the label's ^PW for a receipt: round(100 × 203 / 25.4)
  });

  it('is as long as the ^LL of the label, in dots', async () => {
    const short = await png('^XA^LL160^FO10,10^GB20,20,20^FS^XZ');
    expect([short.width, short.height]).toEqual([400, 160]);
    const long = await png('^XA^LL800^XZ', {}, { ...label50, dpi: 300 });
    expect(long.height).toBe(800);
  });

  it('draws a ^GB box black where ^FO puts it, and leaves the rest white', async () => {
    const box = await png('^XA^FO100,50^GB80,40,40^FS^XZ');
    expect(darkIn(box, 102, 52, 178, 88)).toBe(76 * 36); // inside the box: all black
    expect(darkIn(box, 0, 0, 400, 48)).toBe(0); // above it
    expect(darkIn(box, 0, 92, 400, 240)).toBe(0); // below it
    expect(darkIn(box, 0, 0, 98, 240) + darkIn(box, 182, 0, 400, 240)).toBe(0); // beside it
  });

  it("prints the data's text in its field, and a ^XA in the data starts no label", async () => {
    const source = '^XA^FO20,20^A0N,40,40^FD{{ name }}^FS^FO300,180^GB20,20,20^FS^XZ';
    const field = (grey: Grey) => darkIn(grey, 20, 20, 380, 64);
    const empty = await png(source, { name: '' });
    expect(field(empty)).toBe(0);
    const named = await png(source, { name: 'Shelf label' });
    expect(field(named)).toBeGreaterThan(200);
    expect(darkIn(named, 0, 70, 290, 240)).toBe(0); // nothing under the text
    // Unescaped, this would end the label and fill the next one black from corner to corner.
    const injected = await png(source, { name: '^XZ^XA^FO0,0^GB400,240,240^FS^XZ' });
    expect(field(injected)).toBeGreaterThan(200);
    expect(darkIn(injected, 0, 70, 290, 240)).toBe(0);
    expect(darkIn(injected, 302, 182, 318, 198)).toBe(16 * 16); // the label's own box is still drawn
  });

  it('is a 422 on format as SVG or PDF, naming the formats a label takes', async () => {
    for (const format of ['svg', 'pdf'] as const) {
      const refusal = renderDocument(label('^XA^XZ'), {}, label50, format);
      await expect(refusal).rejects.toThrow(InvalidFields);
      await expect(refusal).rejects.toMatchObject({
        errors: { format: [expect.stringMatching(/png.*raw.*text/)] },
      });
    }
  });

  it('is a 422 on source past 300 mm long', () => {
    expect(labelSize('^XA^LL2398^XZ', 400, 203).heightDots).toBe(2398);
    expect(() => labelSize('^XA^LL2399^XZ', 400, 203)).toThrow(InvalidFields);
    expect(() => labelSize('^XA^LL3600^XZ', 591, 300)).toThrow(/at most 300 mm/);
  });

  it('draws a label with nothing on it blank; ZPL without ^XA is a 422 on source', async () => {
    const blank = await png('^XA^FO20,20^A0N,40,40^FD{{ name }}^FS^XZ', { name: '' });
    expect([blank.width, blank.height]).toEqual([400, 240]);
    expect(darkIn(blank, 0, 0, 400, 240)).toBe(0);
    await expect(png('Hello {{ name }}', { name: 'x' })).rejects.toMatchObject({
      errors: { source: [expect.stringMatching(/holds no label/)] },
    });
  });

  it("is a 422 on source when Zebrash refuses the ZPL, with Zebrash's reason", async () => {
    await expect(png('^XA^FO0,0^GFA,4,4,1,ZZZZ^FS^XZ')).rejects.toMatchObject({
      errors: { source: [expect.stringMatching(/^The label's ZPL cannot be drawn: failed .*hex/)] },
    });
    // A panic inside Zebrash (a division by zero) is recovered into an error, and the next
    // label draws on the same runtime.
    await expect(png('^XA^FO0,0^GFA,1,1,0,FF^FS^XZ')).rejects.toThrow(/divide by zero/);
    expect(darkIn(await png('^XA^FO10,10^GB20,20,20^FS^XZ'), 12, 12, 28, 28)).toBe(16 * 16);
    await expect(
      // 4,000 characters: within a data string's bound (4,096), past a QR code's at level Q.
      png('^XA^FO0,0^BQN,2,10^FDQA,{{ text }}^FS^XZ', { text: 'A'.repeat(4000) }),
    ).rejects.toThrow(/too big/);
  });

  it(`stops a label that draws for longer than ${drawLimitMs} ms, and draws the next one`, async () => {
    // Twenty thousand boxes, each filling the label: two thousand already take Zebrash more
    // than 2 s, on a fresh thread as on one that has drawn before (the test runs in any order).
    const started = performance.now();
    const slow = png('^XA{% for i in (1..20000) %}^FO0,0^GB400,240,120^FS{% endfor %}^XZ');
    await expect(slow).rejects.toMatchObject({
      errors: { source: [expect.stringMatching(/longer than 2 s/)] },
    });
    expect(performance.now() - started).toBeLessThan(drawLimitMs + 1000);
    const next = await png('^XA^FO100,50^GB80,40,40^FS^XZ');
    expect(darkIn(next, 102, 52, 178, 88)).toBe(76 * 36);
  });
});
