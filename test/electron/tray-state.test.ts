import { describe, expect, it } from 'vitest';
import type { NotReadyPrinter } from '../../agent/core/status.ts';
import { trayStateFor } from '../../agent/electron/main/tray-state.ts';
import { agentStatus, printer, recentJob } from './fixtures.ts';

function notReady(name: string, overrides: Partial<NotReadyPrinter> = {}): NotReadyPrinter {
  return {
    printer: printer(name, { state: 'stopped', reasons: ['paused'], message: 'Paper out' }),
    listed: true,
    routes: ['receipts'],
    since: '2026-11-22T10:00:00Z',
    ...overrides,
  };
}

describe('trayStateFor', () => {
  it('shows "not set up" with the idle picture before the server and token are saved', () => {
    const state = trayStateFor(null);
    expect(state.icon).toBe('idle');
    expect(state.tooltip).toContain('Not set up');
  });

  it('shows connected with the server host when all is quiet', () => {
    const state = trayStateFor(agentStatus());
    expect(state).toMatchObject({ icon: 'connected', headline: 'Connected to shop.example.com' });
    expect(state.tooltip.split('\n')[0]).toBe('ShopDesk Print Agent');
  });

  it('shows printing with the number of jobs in the printer', () => {
    const state = trayStateFor(agentStatus({ printing: 2 }));
    expect(state.icon).toBe('printing');
    expect(state.tooltip).toContain('2 jobs printing');
  });

  it('shows paused', () => {
    expect(trayStateFor(agentStatus({ paused: true, printing: 1 })).icon).toBe('paused');
  });

  it('shows unreachable over everything else, and counts the reports still to send', () => {
    const state = trayStateFor(
      agentStatus({
        connection: 'unreachable',
        paused: true,
        pendingReports: 3,
        recentJobs: [recentJob({ id: 1, status: 'failed' })],
      }),
    );
    expect(state.icon).toBe('unreachable');
    expect(state.tooltip).toContain('Server unreachable (shop.example.com)');
    expect(state.tooltip).toContain('3 reports waiting');
  });

  it('shows failed jobs before paused and printing: someone has to act on them', () => {
    const state = trayStateFor(
      agentStatus({
        paused: true,
        printing: 1,
        recentJobs: [
          recentJob({ id: 1, status: 'failed' }),
          recentJob({ id: 2, status: 'failed' }),
        ],
      }),
    );
    expect(state.icon).toBe('failed');
    expect(state.tooltip).toContain('2 jobs failed');
  });

  it('says a refused token needs a new one', () => {
    const state = trayStateFor(agentStatus({ connection: 'unauthorized' }));
    expect(state.icon).toBe('failed');
    expect(state.headline).toMatch(/token refused/i);
  });

  it.each([
    ['starting', 'idle'],
    ['stopped', 'idle'],
  ] as const)('shows %s as %s', (connection, icon) => {
    expect(trayStateFor(agentStatus({ connection })).icon).toBe(icon);
  });

  it('keeps the tooltip within the 127 characters Windows shows', () => {
    const state = trayStateFor(
      agentStatus({
        connection: 'unreachable',
        serverUrl: `https://${'very-long-host-name.'.repeat(8)}example.com`,
        printing: 12,
        pendingReports: 40,
      }),
    );
    expect(state.tooltip.length).toBeLessThanOrEqual(127);
    expect(state.tooltip.endsWith('…')).toBe(true);
  });

  it('names a route printer that is not ready, before failed jobs: its jobs cannot print', () => {
    const state = trayStateFor(
      agentStatus({
        notReady: [notReady('EPSON_TM_T20')],
        recentJobs: [recentJob({ id: 1, status: 'failed' })],
      }),
    );
    expect(state).toMatchObject({
      icon: 'failed',
      headline: 'Printer EPSON_TM_T20 not ready: stopped, paused: Paper out',
    });
    expect(state.tooltip).toContain('1 job failed');
  });

  it('counts several printers that are not ready, and one the PC does not list', () => {
    const state = trayStateFor(
      agentStatus({
        notReady: [
          notReady('EPSON_TM_T20'),
          notReady('Zebra_GK420', {
            listed: false,
            printer: printer('Zebra_GK420', { state: 'unknown' }),
          }),
        ],
      }),
    );
    expect(state.headline).toBe('2 printers not ready: EPSON_TM_T20, Zebra_GK420');
    expect(
      trayStateFor(agentStatus({ notReady: [notReady('Zebra_GK420', { listed: false })] }))
        .headline,
    ).toBe('Printer Zebra_GK420 not ready: not found on this computer');
  });

  it('keeps the connection problem first, and the printers in the details', () => {
    const state = trayStateFor(
      agentStatus({ connection: 'unreachable', notReady: [notReady('EPSON_TM_T20')] }),
    );
    expect(state.icon).toBe('unreachable');
    expect(state.tooltip).toContain('1 printer not ready');
  });

  it('cuts a long printer message to fit the menu', () => {
    const long = notReady('EPSON_TM_T20', {
      printer: printer('EPSON_TM_T20', { state: 'stopped', message: 'x'.repeat(500) }),
    });
    const state = trayStateFor(agentStatus({ notReady: [long] }));
    expect(state.headline.length).toBe(100);
    expect(state.headline.endsWith('…')).toBe(true);
    expect(state.tooltip.length).toBeLessThanOrEqual(127);
  });
});
