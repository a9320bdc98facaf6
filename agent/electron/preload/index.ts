import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import {
  bridgeGlobalName,
  type EventChannel,
  type EventPayloads,
  ipcChannels,
  type ShopDeskBridge,
} from '../common/ipc.ts';

/**
 * The window's only way into the app: a fixed set of named calls, never ipcRenderer itself.
 * Runs sandboxed, bundled to one CommonJS file; the main process validates every argument.
 */
function subscribe<C extends EventChannel>(
  channel: C,
  listener: (payload: EventPayloads[C]) => void,
): () => void {
  // The event object (with its sender) stays here; the page gets the payload only.
  const wrapped = (_event: IpcRendererEvent, payload: EventPayloads[C]) => listener(payload);
  ipcRenderer.on(channel, wrapped);
  return () => {
    ipcRenderer.removeListener(channel, wrapped);
  };
}

const bridge: ShopDeskBridge = {
  getSnapshot: () => ipcRenderer.invoke(ipcChannels.getSnapshot),
  saveSettings: (patch) => ipcRenderer.invoke(ipcChannels.saveSettings, patch),
  testConnection: (request) => ipcRenderer.invoke(ipcChannels.testConnection, request),
  listPrinters: () => ipcRenderer.invoke(ipcChannels.listPrinters),
  retryJob: (jobId) => ipcRenderer.invoke(ipcChannels.retryJob, jobId),
  reprintJob: (jobId) => ipcRenderer.invoke(ipcChannels.reprintJob, jobId),
  testPrint: (route) => ipcRenderer.invoke(ipcChannels.testPrint, route),
  pauseAgent: () => ipcRenderer.invoke(ipcChannels.pauseAgent),
  resumeAgent: () => ipcRenderer.invoke(ipcChannels.resumeAgent),
  openLogs: () => ipcRenderer.invoke(ipcChannels.openLogs),
  onStatusChanged: (listener) => subscribe(ipcChannels.statusChanged, listener),
  onLogAppended: (listener) => subscribe(ipcChannels.logAppended, listener),
  onSettingsChanged: (listener) => subscribe(ipcChannels.settingsChanged, listener),
};

contextBridge.exposeInMainWorld(bridgeGlobalName, bridge);
