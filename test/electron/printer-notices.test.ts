import { describe, expect, it } from 'vitest';
import { PrinterNotices } from '../../agent/electron/main/printer-notices.ts';
import type { PrinterInfo } from '../../shared/printer-info.ts';

/** The tray's desktop notifications about printers (docs/agent.md, "Printer notifications"). */
describe('PrinterNotices', () => {
  const printer = (fields: Partial<PrinterInfo>): PrinterInfo => ({
    name: 'EPSON',
    is_default: true,
    state: 'idle',
    reasons: [],
    accepting_jobs: true,
    message: null,
    ...fields,
  });
  const paperOut = printer({ state: 'stopped', reasons: ['paused'], message: 'Paper out' });
  const coverOpen = printer({ state: 'stopped', reasons: ['cover-open-error'] });

  it('says nothing of a cover opened for 10 s', () => {
    const notices = new PrinterNotices(30_000);
    expect(notices.update([coverOpen], 0)).toEqual([]);
    expect(notices.update([coverOpen], 10_000)).toEqual([]);
    expect(notices.update([printer({})], 11_000)).toEqual([]);
    expect(notices.update([printer({})], 60_000)).toEqual([]);
  });

  it('announces a printer out of paper for 30 s once, and its recovery once', () => {
    const notices = new PrinterNotices(30_000);
    expect(notices.update([paperOut], 0)).toEqual([]);
    expect(notices.update([paperOut], 29_000)).toEqual([]);
    expect(notices.update([paperOut], 30_000)).toEqual([
      { title: 'EPSON needs attention', body: 'printer EPSON is out of paper: Paper out.' },
    ]);
    expect(notices.update([paperOut], 90_000)).toEqual([]);
    expect(notices.update([printer({})], 95_000)).toEqual([
      { title: 'EPSON prints again', body: 'It was: printer EPSON is out of paper: Paper out.' },
    ]);
    expect(notices.update([printer({})], 100_000)).toEqual([]);
    // A new episode is announced again.
    notices.update([paperOut], 110_000);
    expect(notices.update([paperOut], 140_000)).toHaveLength(1);
  });
});
