import { describe, expect, it } from 'vitest';
import {
  buildTrayMenu,
  type TrayAction,
  type TrayMenuItem,
  trayRecentJobLimit,
} from '../../agent/electron/main/tray-menu.ts';
import { agentStatus, printer, recentJob } from './fixtures.ts';

function find(items: TrayMenuItem[], label: string): TrayMenuItem {
  const found = items.find((item) => item.type !== 'separator' && item.label === label);
  if (!found) throw new Error(`no menu item "${label}" in ${JSON.stringify(items)}`);
  return found;
}

function actionOf(item: TrayMenuItem): TrayAction | null {
  return item.type === 'normal' ? item.action : null;
}

function submenuOf(item: TrayMenuItem): TrayMenuItem[] {
  if (item.type !== 'submenu') throw new Error(`"${JSON.stringify(item)}" has no submenu`);
  return item.submenu;
}

describe('buildTrayMenu', () => {
  it('before set-up offers open, logs and quit, and no agent actions', () => {
    const menu = buildTrayMenu({ status: null, routes: [] });
    expect(actionOf(find(menu, 'Open ShopDesk Print Agent'))).toEqual({ kind: 'open-window' });
    expect(actionOf(find(menu, 'Open logs'))).toEqual({ kind: 'open-logs' });
    expect(actionOf(find(menu, 'Quit'))).toEqual({ kind: 'quit' });
    expect(menu.some((item) => item.type !== 'separator' && item.label.startsWith('Pause'))).toBe(
      false,
    );
    expect(find(menu, 'Test print')).toMatchObject({ enabled: false });
  });

  it('starts with the state as a disabled headline and ends with Quit', () => {
    const menu = buildTrayMenu({ status: agentStatus(), routes: [] });
    expect(menu[0]).toMatchObject({
      type: 'normal',
      label: 'Connected to shop.example.com',
      enabled: false,
    });
    expect(menu.at(-1)).toMatchObject({ label: 'Quit' });
  });

  it('heads the menu with a printer that is not ready, "&" kept literal', () => {
    const status = agentStatus({
      notReady: [
        {
          printer: printer('Bar & Kitchen', { state: 'offline', reasons: ['offline-report'] }),
          listed: true,
          routes: ['kitchen'],
          since: '2026-11-22T10:00:00Z',
        },
      ],
    });
    expect(buildTrayMenu({ status, routes: [] })[0]).toMatchObject({
      label: 'Printer Bar && Kitchen not ready: offline',
      enabled: false,
    });
  });

  it('offers pause when printing and resume when paused', () => {
    expect(
      actionOf(find(buildTrayMenu({ status: agentStatus(), routes: [] }), 'Pause printing')),
    ).toEqual({
      kind: 'pause',
    });
    const paused = buildTrayMenu({ status: agentStatus({ paused: true }), routes: [] });
    expect(actionOf(find(paused, 'Resume printing'))).toEqual({ kind: 'resume' });
  });

  it('lists recent jobs with retry and reprint where the queue allows them', () => {
    const status = agentStatus({
      recentJobs: [
        recentJob({ id: 7, status: 'failed', title: 'Order 1001', error: 'Printer offline' }),
        recentJob({ id: 6, status: 'printed' }),
        recentJob({ id: 5, status: 'expired' }),
        recentJob({ id: 4, status: 'printing' }),
      ],
    });
    const jobs = submenuOf(find(buildTrayMenu({ status, routes: [] }), 'Recent jobs'));
    const [failed, printed, expired, printing] = jobs as [
      TrayMenuItem,
      TrayMenuItem,
      TrayMenuItem,
      TrayMenuItem,
    ];

    expect(failed).toMatchObject({ label: '#7 Order 1001 (receipts) — FAILED' });
    const failedItems = submenuOf(failed);
    expect(failedItems[0]).toMatchObject({ label: 'Printer offline', enabled: false });
    expect(actionOf(find(failedItems, 'Retry'))).toEqual({ kind: 'retry', jobId: 7 });
    expect(actionOf(find(failedItems, 'Reprint'))).toEqual({ kind: 'reprint', jobId: 7 });

    expect(submenuOf(printed).map((item) => actionOf(item))).toEqual([
      { kind: 'reprint', jobId: 6 },
    ]);
    expect(submenuOf(expired).map((item) => actionOf(item))).toEqual([{ kind: 'retry', jobId: 5 }]);
    // A job in the printer can be neither retried nor reprinted yet.
    expect(printing).toMatchObject({ type: 'normal', enabled: false });
  });

  it(`lists at most ${trayRecentJobLimit} jobs`, () => {
    const recentJobs = Array.from({ length: 20 }, (_, index) => recentJob({ id: index + 1 }));
    const jobs = submenuOf(
      find(buildTrayMenu({ status: agentStatus({ recentJobs }), routes: [] }), 'Recent jobs'),
    );
    expect(jobs).toHaveLength(trayRecentJobLimit);
  });

  it('says so when there are no recent jobs', () => {
    expect(
      find(buildTrayMenu({ status: agentStatus(), routes: [] }), 'No recent jobs'),
    ).toMatchObject({
      enabled: false,
    });
  });

  it('offers a test print per route, sorted', () => {
    const menu = buildTrayMenu({ status: agentStatus(), routes: ['labels', 'a4', 'receipts'] });
    const routes = submenuOf(find(menu, 'Test print'));
    expect(routes.map(actionOf)).toEqual([
      { kind: 'test-print', route: 'a4' },
      { kind: 'test-print', route: 'labels' },
      { kind: 'test-print', route: 'receipts' },
    ]);
  });

  it('doubles "&" in text from integrators so menus do not eat it as a mnemonic', () => {
    const status = agentStatus({
      recentJobs: [recentJob({ id: 3, title: 'Smith & Co', status: 'printed' })],
    });
    const jobs = submenuOf(find(buildTrayMenu({ status, routes: [] }), 'Recent jobs'));
    expect(jobs[0]).toMatchObject({ label: '#3 Smith && Co (receipts) — printed' });
  });

  it('is a pure function: the same state gives the same menu', () => {
    const state = { status: agentStatus({ recentJobs: [recentJob({ id: 1 })] }), routes: ['a4'] };
    expect(buildTrayMenu(state)).toEqual(buildTrayMenu(structuredClone(state)));
  });
});
