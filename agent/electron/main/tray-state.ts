import { describeNotReady } from '../../core/printer-readiness.ts';
import type { AgentStatus } from '../../core/status.ts';

/** The tray pictures agent/electron/build/tray/ holds, one per state the staff must tell apart. */
export const trayIconNames = [
  'idle',
  'connected',
  'printing',
  'paused',
  'unreachable',
  'failed',
] as const;
export type TrayIconName = (typeof trayIconNames)[number];

export interface TrayState {
  icon: TrayIconName;
  /** Windows cuts tray tooltips at 127 characters; this one always fits. */
  tooltip: string;
  /** One short line for the top of the menu. */
  headline: string;
}

const productName = 'ShopDesk Print Agent';
const maxTooltipLength = 127;
const maxHeadlineLength = 100;

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function hostOf(serverUrl: string): string {
  try {
    return new URL(serverUrl).host;
  } catch {
    return serverUrl;
  }
}

/** One not-ready printer by name and why; several by count and names. */
function notReadyHeadline(status: AgentStatus): string {
  const [first, ...others] = status.notReady;
  if (!first) return '';
  const text =
    others.length === 0
      ? `Printer ${first.printer.name} not ready: ${describeNotReady(first)}`
      : `${status.notReady.length} printers not ready: ${status.notReady.map((entry) => entry.printer.name).join(', ')}`;
  // It heads the menu too, where a printer's own message could run long.
  return text.length > maxHeadlineLength ? `${text.slice(0, maxHeadlineLength - 1)}…` : text;
}

/**
 * What the tray shows for a status: `null` means not set up yet. Order of precedence: a
 * connection problem hides everything else (nothing prints), then a route's printer that is
 * not ready (its jobs cannot print: someone must act), then failed jobs (someone must act),
 * then paused (someone chose it), then printing, then all quiet.
 */
export function trayStateFor(status: AgentStatus | null): TrayState {
  if (status === null) {
    return finish('idle', 'Not set up: open the agent to enter the server and token', []);
  }
  const failed = status.recentJobs.filter((job) => job.status === 'failed').length;
  const details: string[] = [];
  if (status.printing > 0) details.push(plural(status.printing, 'job printing', 'jobs printing'));
  if (failed > 0) details.push(plural(failed, 'job failed', 'jobs failed'));
  if (status.pendingReports > 0) {
    details.push(plural(status.pendingReports, 'report waiting', 'reports waiting'));
  }
  const host = hostOf(status.serverUrl);
  const notReady = status.notReady.length;
  if (notReady > 0 && status.connection !== 'connected') {
    details.push(plural(notReady, 'printer not ready', 'printers not ready'));
  }

  switch (status.connection) {
    case 'starting':
      return finish('idle', `Connecting to ${host}…`, details);
    case 'stopped':
      return finish('idle', 'Stopped', details);
    case 'unauthorized':
      return finish('failed', 'Token refused by the server: enter a new one', details);
    case 'unreachable':
      return finish('unreachable', `Server unreachable (${host})`, details);
    case 'connected':
      break;
  }
  if (notReady > 0) return finish('failed', notReadyHeadline(status), details);
  if (failed > 0) return finish('failed', `Connected to ${host}`, details);
  if (status.paused) return finish('paused', 'Paused: jobs wait on the server', details);
  if (status.printing > 0) return finish('printing', `Connected to ${host}`, details);
  return finish('connected', `Connected to ${host}`, details);
}

function finish(icon: TrayIconName, headline: string, details: string[]): TrayState {
  const lines = [productName, headline, ...(details.length > 0 ? [details.join(', ')] : [])];
  let tooltip = lines.join('\n');
  if (tooltip.length > maxTooltipLength) tooltip = `${tooltip.slice(0, maxTooltipLength - 1)}…`;
  return { icon, tooltip, headline };
}
