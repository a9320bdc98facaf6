import type { AgentStatus, RecentJob } from '../../core/status.ts';
import { trayStateFor } from './tray-state.ts';

/** What a menu item does when clicked; the tray class turns each into a call. */
export type TrayAction =
  | { kind: 'open-window' }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'retry'; jobId: number }
  | { kind: 'reprint'; jobId: number }
  | { kind: 'test-print'; route: string }
  | { kind: 'open-logs' }
  | { kind: 'quit' };

/** A plain menu template: no Electron types, so it is built and tested without Electron. */
export type TrayMenuItem =
  | { type: 'separator' }
  | { type: 'normal'; label: string; enabled: boolean; action: TrayAction | null }
  | { type: 'submenu'; label: string; enabled: boolean; submenu: TrayMenuItem[] };

export interface TrayMenuState {
  status: AgentStatus | null;
  /** The route names set in the settings, for "Test print". */
  routes: string[];
}

/** How many recent jobs the menu lists; the window shows the rest. */
export const trayRecentJobLimit = 8;

const statusLabels: Record<RecentJob['status'], string> = {
  queued: 'queued',
  claimed: 'claimed',
  printing: 'printing',
  printed: 'printed',
  failed: 'FAILED',
  expired: 'expired',
  cancelled: 'cancelled',
};

function item(label: string, action: TrayAction | null, enabled = true): TrayMenuItem {
  return { type: 'normal', label, enabled: enabled && action !== null, action };
}

/** Menus read "&" as a mnemonic marker on Windows and Linux; job titles come from integrators. */
function menuText(text: string): string {
  return text.replaceAll('&', '&&');
}

function jobLabel(job: RecentJob): string {
  const name = job.title ? `${job.title} (${job.route})` : job.route;
  const label = `#${job.id} ${name} — ${statusLabels[job.status]}`;
  return menuText(label.length > 60 ? `${label.slice(0, 59)}…` : label);
}

function jobMenu(job: RecentJob): TrayMenuItem {
  const submenu: TrayMenuItem[] = [];
  if (job.error) submenu.push(item(menuText(job.error.slice(0, 80)), null, false));
  // Retry and reprint follow the queue's transitions (docs/printing.md): retry re-queues a failed
  // or expired job under the same id; reprint makes a new job from a printed or failed one.
  if (job.status === 'failed' || job.status === 'expired') {
    submenu.push(item('Retry', { kind: 'retry', jobId: job.id }));
  }
  if (job.status === 'printed' || job.status === 'failed') {
    submenu.push(item('Reprint', { kind: 'reprint', jobId: job.id }));
  }
  if (submenu.length === 0) return item(jobLabel(job), null, false);
  return { type: 'submenu', label: jobLabel(job), enabled: true, submenu };
}

export function buildTrayMenu(state: TrayMenuState): TrayMenuItem[] {
  const { status } = state;
  const headline = trayStateFor(status).headline;
  const menu: TrayMenuItem[] = [
    item(menuText(headline), null, false),
    { type: 'separator' },
    item('Open ShopDesk Print Agent', { kind: 'open-window' }),
  ];

  if (status) {
    menu.push(
      status.paused
        ? item('Resume printing', { kind: 'resume' })
        : item('Pause printing', { kind: 'pause' }),
    );
    const jobs = status.recentJobs.slice(0, trayRecentJobLimit);
    menu.push(
      jobs.length > 0
        ? { type: 'submenu', label: 'Recent jobs', enabled: true, submenu: jobs.map(jobMenu) }
        : item('No recent jobs', null, false),
    );
  }

  const routes = [...state.routes].sort();
  menu.push(
    routes.length > 0 && status !== null
      ? {
          type: 'submenu',
          label: 'Test print',
          enabled: true,
          submenu: routes.map((route) => item(menuText(route), { kind: 'test-print', route })),
        }
      : item('Test print', null, false),
    { type: 'separator' },
    item('Open logs', { kind: 'open-logs' }),
    item('Quit', { kind: 'quit' }),
  );
  return menu;
}
