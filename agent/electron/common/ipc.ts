import type { PrinterInfo } from '../../../shared/printing.ts';
import type { AgentStatus, LogLine } from '../../core/status.ts';
import type { ConnectionTestRequest, PrinterByRoute, SettingsPatch } from './ipc-schemas.ts';

/**
 * The one list of IPC channels between the settings window and the main process. No Electron
 * import here, and no zod either (the preload and the renderer bundle this file): the argument
 * schema of each invoke channel is in ipc-schemas.ts, which only the main process loads.
 *
 * `invoke` channels carry a request from the window and answer it; the main process validates
 * the arguments of every one before it does anything. `event` channels carry pushes from the
 * main process to the window.
 */
export const ipcChannels = {
  getSnapshot: 'app:get-snapshot',
  saveSettings: 'settings:save',
  testConnection: 'settings:test-connection',
  listPrinters: 'printers:list',
  retryJob: 'jobs:retry',
  reprintJob: 'jobs:reprint',
  testPrint: 'jobs:test-print',
  pauseAgent: 'agent:pause',
  resumeAgent: 'agent:resume',
  openLogs: 'logs:open',
  statusChanged: 'agent:status-changed',
  logAppended: 'agent:log-appended',
  settingsChanged: 'settings:changed',
} as const;

export type IpcChannel = (typeof ipcChannels)[keyof typeof ipcChannels];

export const eventChannels = [
  ipcChannels.statusChanged,
  ipcChannels.logAppended,
  ipcChannels.settingsChanged,
] as const;
export type EventChannel = (typeof eventChannels)[number];
export type InvokeChannel = Exclude<IpcChannel, EventChannel>;

export type { ConnectionTestRequest, PrinterByRoute, SettingsPatch };

/** How well the saved token is protected; the window shows the warning when there is one. */
export type TokenProtection = 'os-encryption' | 'basic-text' | 'memory-only';

export interface SettingsView {
  serverUrl: string;
  routes: PrinterByRoute;
  startAtLogin: boolean;
  /** The token itself never leaves the main process. */
  hasToken: boolean;
  tokenProtection: TokenProtection;
  tokenWarning: string | null;
}

export interface AppSnapshot {
  settings: SettingsView;
  /** Null until the server address and token are set. */
  status: AgentStatus | null;
  logTail: LogLine[];
  logFile: string;
}

export type ActionResult = { ok: true; message?: string } | { ok: false; message: string };

export interface InvokeResults {
  [ipcChannels.getSnapshot]: AppSnapshot;
  [ipcChannels.saveSettings]: ActionResult;
  [ipcChannels.testConnection]: ActionResult;
  [ipcChannels.listPrinters]: PrinterInfo[];
  [ipcChannels.retryJob]: ActionResult;
  [ipcChannels.reprintJob]: ActionResult;
  [ipcChannels.testPrint]: ActionResult;
  [ipcChannels.pauseAgent]: ActionResult;
  [ipcChannels.resumeAgent]: ActionResult;
  [ipcChannels.openLogs]: ActionResult;
}

export interface EventPayloads {
  [ipcChannels.statusChanged]: AgentStatus | null;
  [ipcChannels.logAppended]: LogLine;
  [ipcChannels.settingsChanged]: SettingsView;
}

/** What the preload puts on `window.shopdesk`: the window's whole reach into the app. */
export interface ShopDeskBridge {
  getSnapshot(): Promise<AppSnapshot>;
  saveSettings(patch: SettingsPatch): Promise<ActionResult>;
  testConnection(request: ConnectionTestRequest): Promise<ActionResult>;
  listPrinters(): Promise<PrinterInfo[]>;
  retryJob(jobId: number): Promise<ActionResult>;
  reprintJob(jobId: number): Promise<ActionResult>;
  testPrint(route: string): Promise<ActionResult>;
  pauseAgent(): Promise<ActionResult>;
  resumeAgent(): Promise<ActionResult>;
  openLogs(): Promise<ActionResult>;
  /** Each returns a function that stops listening. */
  onStatusChanged(listener: (status: AgentStatus | null) => void): () => void;
  onLogAppended(listener: (line: LogLine) => void): () => void;
  onSettingsChanged(listener: (settings: SettingsView) => void): () => void;
}

export const bridgeGlobalName = 'shopdesk';
