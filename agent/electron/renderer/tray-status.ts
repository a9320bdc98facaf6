import type { Notice, Tone } from '../../../ui/status-block.tsx';
import { describeNotReady } from '../../core/printer-readiness.ts';
import type { AgentStatus } from '../../core/status.ts';
import type { SettingsView } from '../common/ipc.ts';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The agent's state in a few words, and its colour. */
export function pillOf(status: AgentStatus | null): { words: string; tone: Tone } {
  if (!status) return { words: 'Not set up', tone: 'idle' };
  if (status.connection === 'unreachable') return { words: 'Server unreachable', tone: 'bad' };
  if (status.connection === 'unauthorized') return { words: 'Token refused', tone: 'bad' };
  if (status.connection === 'starting') return { words: 'Connecting…', tone: 'idle' };
  if (status.connection === 'stopped') return { words: 'Stopped', tone: 'idle' };
  if (status.paused) return { words: 'Paused', tone: 'warn' };
  return { words: `Connected to ${hostOf(status.serverUrl)}`, tone: 'ok' };
}

/** What needs someone at this PC, each with its cause and what to do, most pressing first. */
export function noticesOf(settings: SettingsView | null, status: AgentStatus | null): Notice[] {
  const notices: Notice[] = [];
  const add = (tone: Notice['tone'], text: string) => notices.push({ tone, text });
  if (settings && (!settings.serverUrl || !settings.hasToken)) {
    add(
      'info',
      'Enter the server address and the agent token below, then save, to start printing.',
    );
  }
  if (settings?.tokenWarning) add('warn', settings.tokenWarning);
  if (status?.connection === 'unauthorized') {
    add('bad', 'The server refused the token. Ask IT for a new agent token and enter it below.');
  } else if (status?.connection === 'unreachable') {
    const waiting =
      status.pendingReports > 0 ? ` ${status.pendingReports} reports wait to be sent.` : '';
    add('bad', `The server cannot be reached. Jobs already here still print.${waiting}`);
  }
  for (const entry of status?.notReady ?? []) {
    const routes = entry.routes.join(', ');
    add(
      'bad',
      `Printer "${entry.printer.name}" (${routes}) is not ready: ${describeNotReady(entry)}. Its jobs cannot print until it is.`,
    );
  }
  if (status?.paused)
    add('warn', 'Printing is paused: new jobs wait on the server until you resume.');
  if (status?.lastError && status.connection === 'connected') add('bad', status.lastError);
  return notices;
}
