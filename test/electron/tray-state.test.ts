import { describe, expect, it } from 'vitest';
import { trayStateFor } from '../../agent/electron/main/tray-state.ts';
import { agentStatus, recentJob } from './fixtures.ts';

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
});
