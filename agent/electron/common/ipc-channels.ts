/**
 * The one list of IPC channels between the settings window and the main process. No Electron
 * import here, and no zod either (the preload and the renderer bundle this file). ipc.ts (what
 * each channel carries) and ipc-schemas.ts (the argument schema of each invoke channel, which
 * only the main process loads) both build on it, so ipc-schemas.ts needs nothing of ipc.ts.
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
