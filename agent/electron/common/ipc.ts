import type { PrinterInfo } from '../../../shared/printing.ts';
import type { AgentStatus, LogLine } from '../../core/status.ts';
import { ipcChannels } from './ipc-channels.ts';
import type {
  ConnectionTestRequest,
  PrinterByRoute,
  ProfileByRoute,
  SettingsPatch,
} from './ipc-schemas.ts';

/**
 * What each IPC channel (ipc-channels.ts) carries between the settings window and the main
 * process, and the bridge the preload exposes. No Electron and no zod here: the preload and
 * the renderer bundle this file.
 */
export {
  type EventChannel,
  eventChannels,
  type InvokeChannel,
  type IpcChannel,
  ipcChannels,
} from './ipc-channels.ts';

export type { ConnectionTestRequest, PrinterByRoute, ProfileByRoute, SettingsPatch };

/** How well the saved token is protected; the window shows the warning when there is one. */
export type TokenProtection = 'os-encryption' | 'basic-text' | 'memory-only';

export interface SettingsView {
  serverUrl: string;
  routes: PrinterByRoute;
  /** Each route's printer profile, where one is set. */
  profiles: ProfileByRoute;
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
