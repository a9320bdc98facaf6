import { z } from 'zod';
import type { PrinterInfo } from '../../../shared/printing.ts';
import { routeNameSchema } from '../../../shared/printing.ts';
import type { AgentStatus, LogLine } from '../../core/status.ts';

/**
 * The one list of IPC channels between the settings window and the main process. No Electron
 * import here: the preload, the main process and the renderer all read it, and tests too.
 *
 * `invoke` channels carry a request from the window and answer it; the main process validates
 * the arguments of every one with the zod tuple below before it does anything. `event`
 * channels carry pushes from the main process to the window.
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

const printerNameSchema = z.string().trim().min(1).max(255);
const jobIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** What the user typed as the server address: http(s) only, no credentials in it. */
export const serverUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password
      );
    } catch {
      return false;
    }
  }, 'Enter the server address, like https://shopdesk.example.com');
export const tokenSchema = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, 'The token is one word of printable characters.');

export const routeMappingSchema = z
  .record(routeNameSchema, printerNameSchema)
  .refine((routes) => Object.keys(routes).length <= 100, 'At most 100 routes.');
export type RouteMapping = z.infer<typeof routeMappingSchema>;

/** A change of settings from the window; fields left out stay as they are. */
export const settingsPatchSchema = z.strictObject({
  serverUrl: serverUrlSchema.optional(),
  token: tokenSchema.optional(),
  routes: routeMappingSchema.optional(),
  startAtLogin: z.boolean().optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const connectionTestSchema = z.strictObject({
  serverUrl: serverUrlSchema,
  /** Left out: test the token already saved. */
  token: tokenSchema.optional(),
});
export type ConnectionTestRequest = z.infer<typeof connectionTestSchema>;

/** Arguments of each invoke channel, as a tuple: extra or missing arguments are refused too. */
export const invokeArgumentSchemas = {
  [ipcChannels.getSnapshot]: z.tuple([]),
  [ipcChannels.saveSettings]: z.tuple([settingsPatchSchema]),
  [ipcChannels.testConnection]: z.tuple([connectionTestSchema]),
  [ipcChannels.listPrinters]: z.tuple([]),
  [ipcChannels.retryJob]: z.tuple([jobIdSchema]),
  [ipcChannels.reprintJob]: z.tuple([jobIdSchema]),
  [ipcChannels.testPrint]: z.tuple([routeNameSchema]),
  [ipcChannels.pauseAgent]: z.tuple([]),
  [ipcChannels.resumeAgent]: z.tuple([]),
  [ipcChannels.openLogs]: z.tuple([]),
} as const;

export type InvokeChannel = keyof typeof invokeArgumentSchemas;
export type InvokeArguments<C extends InvokeChannel> = z.infer<(typeof invokeArgumentSchemas)[C]>;

/** How well the saved token is protected; the window shows the warning when there is one. */
export type TokenProtection = 'os-encryption' | 'basic-text' | 'memory-only';

export interface SettingsView {
  serverUrl: string;
  routes: RouteMapping;
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
export type EventChannel = keyof EventPayloads;

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
