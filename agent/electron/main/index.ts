import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, type BrowserWindow, Notification, session, shell } from 'electron';
import { redeemEnrollmentCode } from '../../core/enrollment.ts';
import { createPrinterBackend } from '../../core/printers/index.ts';
import { unknownPrinter } from '../../core/printers/printer-status.ts';
import {
  type ActionResult,
  type EventChannel,
  type EventPayloads,
  ipcChannels,
} from '../common/ipc.ts';
import { createAgentActions } from './agent-actions.ts';
import { createAgentControl } from './agent-host.ts';
import { type AgentSettings, openAgentSettings } from './agent-settings.ts';
import { AgentSupervisor } from './agent-supervisor.ts';
import { AgentTray } from './agent-tray.ts';
import { startAutoUpdate } from './auto-update.ts';
import { registerIpcHandlers } from './ipc-handlers.ts';
import {
  type LaunchOptions,
  machineConfigPath,
  parseLaunchArguments,
  readProvisioningFile,
} from './launch-options.ts';
import { AgentLogFile } from './log-file.ts';
import { createMainWindow, registerAppScheme, secureSession, showWindow } from './main-window.ts';
import { PrinterNotices } from './printer-notices.ts';
import { applyStartAtLogin } from './start-at-login.ts';
import type { TrayAction } from './tray-menu.ts';

/** This file is bundled to dist/main.js, beside preload.cjs, renderer/ and icons/. */
const distDir = dirname(fileURLToPath(import.meta.url));
const paths = {
  preload: join(distDir, 'preload.cjs'),
  renderer: join(distDir, 'renderer'),
  icons: join(distDir, 'icons'),
};

let quitting = false;
let mainWindow: BrowserWindow | null = null;
let settings: AgentSettings;
let supervisor: AgentSupervisor;
let tray: AgentTray;
const printerNotices = new PrinterNotices();
let actions: ReturnType<typeof createAgentActions>;
/** Set once every setupX() below has run. */
let started = false;
/** The machine-wide file's enrolment code, traded at the first start (setupEnrollment). */
let pendingEnrollment: string | null = null;

/** Electron passes its own path first, and the script path too when not packaged. */
function readLaunchOptions(argv: readonly string[]): LaunchOptions {
  return parseLaunchArguments(
    argv.slice(app.isPackaged ? 1 : 2),
    machineConfigPath(process.platform, process.env),
  );
}

const launch = readLaunchOptions(process.argv);
/** How long the core gets to stop (journal, outbox) when the app quits. */
const stopTimeoutMs = 5000;

function setupAppIdentity(): void {
  // The same name in development and when packaged, so settings and logs live in one place
  // (docs/it-guide.md gives the paths). Must precede the lock, which lives in userData.
  app.setName('ShopDesk Print Agent');
  if (process.platform === 'win32') app.setAppUserModelId('com.shopdesk.agent');
}

function setupSingleInstance(): boolean {
  // Two copies would run two agents on one journal and tray: the second hands over and quits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  // A second start hands its flags over (an install script may run one while the agent is
  // already in the tray), then shows the window.
  app.on('second-instance', (_event, argv) => {
    const second = readLaunchOptions(argv);
    if (started) applyLaunchFlags(second);
    openWindow();
  });
  // macOS: clicking the app again (Finder, Spotlight) brings the window back.
  app.on('activate', () => openWindow());
  return true;
}

function setupQuitBehaviour(): void {
  app.on('before-quit', () => {
    quitting = true;
  });
  // A tray app lives on with no window open.
  app.on('window-all-closed', () => {});
  app.on('will-quit', (event) => {
    if (supervisor?.control) {
      // Let the core finish its journal and outbox writes before the process goes.
      event.preventDefault();
      const deadline = new Promise((done) => setTimeout(done, stopTimeoutMs));
      void Promise.race([supervisor.stop(), deadline]).finally(() => app.exit(0));
    }
  });
}

function setupSettings(): void {
  const userData = app.getPath('userData');
  settings = openAgentSettings(userData);
  supervisor = new AgentSupervisor({
    createControl: createAgentControl,
    stateDir: join(userData, 'agent-state'),
    logFile: new AgentLogFile(join(app.getPath('logs'), 'agent.log')),
    // Routes edited in the console: kept in the settings, shown in the window at once.
    keepRoutes: (routes) => {
      settings.keepServerRoutes(routes);
      broadcast(ipcChannels.settingsChanged, settings.view());
    },
  });
  const warning = settings.view().tokenWarning;
  if (warning) supervisor.log('warn', warning);
}

function setupProvisioning(): void {
  for (const problem of launch.problems) supervisor.log('error', `Command line: ${problem}`);
  const { provisioning, problem } = launch.configFile
    ? readProvisioningFile(launch.configFile)
    : { provisioning: null, problem: null };
  if (problem) supervisor.log('error', `Pre-configuration: ${problem}`);
  if (provisioning && !settings.isProvisioned()) {
    // The machine-wide file fills in a user's first start; after that the user's own settings
    // (changed in the window) win. An enrolment code is traded once the window's actions
    // exist (setupEnrollment).
    const { enrollmentCode: _code, ...rest } = provisioning;
    settings.apply({ ...rest, provisioned: true });
    supervisor.log('info', `Pre-configured from ${launch.configFile}.`);
  } else {
    // autoUpdate and the channel are machine policy: IT can change them later, for every user.
    if (provisioning?.autoUpdate !== undefined)
      settings.apply({ autoUpdate: provisioning.autoUpdate });
    if (provisioning?.updateChannel !== undefined) {
      settings.apply({ updateChannel: provisioning.updateChannel });
    }
  }
  // Until this user's settings hold a token: a start while the server was away tries again.
  if (provisioning?.enrollmentCode && settings.token() === null) {
    pendingEnrollment = provisioning.enrollmentCode;
  }
  applyLaunchFlags(launch);
}

/** Flags are explicit and win at every start that passes them. */
function applyLaunchFlags(options: LaunchOptions): boolean {
  if (Object.keys(options.flags).length === 0) return false;
  settings.apply({ ...options.flags, provisioned: true });
  supervisor.log('info', 'Pre-configured from the command line.');
  // After start-up (a second instance's flags): restart the core and refresh what shows it.
  if (started) {
    broadcast(ipcChannels.settingsChanged, settings.view());
    updateTray();
    void supervisor.configure(settings.connectionConfig());
  }
  return true;
}

function broadcast<C extends EventChannel>(channel: C, payload: EventPayloads[C]): void {
  if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(channel, payload);
}

function setupWindow(): void {
  secureSession(session.defaultSession, paths.renderer);
  mainWindow = createMainWindow({
    preloadPath: paths.preload,
    iconPath: join(paths.icons, 'icon.png'),
    isQuitting: () => quitting,
  });
  const window = mainWindow;
  // macOS login items pass no arguments; they say so through wasOpenedAtLogin instead.
  const startedAtLogin =
    launch.hidden || (process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin);
  window.once('ready-to-show', () => {
    // Not set up yet: open the window even at a login start, the tray alone would not say so.
    if (!startedAtLogin || settings.connectionConfig() === null) showWindow(window);
  });
}

function setupIpc(): void {
  actions = createAgentActions({
    settings,
    supervisor,
    redeemEnrollment: (serverUrl, code) =>
      redeemEnrollmentCode({
        serverUrl,
        code,
        stateDir: join(app.getPath('userData'), 'agent-state'),
        hostname: hostname(),
        // A window waits for an answer: one try, the refusal or the outage said at once.
        signal: AbortSignal.timeout(30_000),
      }),
    defaultPrinter: async () => {
      const printers = await createPrinterBackend(process.platform, {}).listPrinters();
      return printers.find((printer) => printer.is_default)?.name ?? null;
    },
    logFilePath: join(app.getPath('logs'), 'agent.log'),
    listSystemPrinters: async () => {
      const printers = (await mainWindow?.webContents.getPrintersAsync()) ?? [];
      // Electron no longer says which is the default, nor the state; the core's own list
      // does, once running.
      return printers.map((printer) => unknownPrinter(printer.name));
    },
    openPath: (path) => shell.openPath(path),
    applyStartAtLogin: setStartAtLogin,
    onSettingsChanged: () => {
      broadcast(ipcChannels.settingsChanged, settings.view());
      updateTray();
    },
  });
  registerIpcHandlers(
    actions,
    () => new Set(mainWindow && !mainWindow.isDestroyed() ? [mainWindow.webContents.id] : []),
    (channel, reason) => supervisor.log('warn', `IPC ${channel} refused: ${reason}`),
  );
}

function updateTray(): void {
  tray?.update({ status: supervisor.status(), routes: Object.keys(settings.routes()) });
}

/** Tray clicks have no window to answer in: a failure shows as a system notification. */
function notifyFailure(result: Promise<ActionResult> | ActionResult): void {
  void Promise.resolve(result).then((outcome) => {
    if (!outcome.ok && Notification.isSupported()) {
      new Notification({ title: 'ShopDesk Print Agent', body: outcome.message }).show();
    }
  });
}

function dispatchTrayAction(action: TrayAction): void {
  switch (action.kind) {
    case 'open-window':
      openWindow();
      break;
    case 'pause':
      notifyFailure(actions['agent:pause']());
      break;
    case 'resume':
      notifyFailure(actions['agent:resume']());
      break;
    case 'retry':
      notifyFailure(actions['jobs:retry'](action.jobId));
      break;
    case 'reprint':
      notifyFailure(actions['jobs:reprint'](action.jobId));
      break;
    case 'test-print':
      notifyFailure(actions['jobs:test-print'](action.route));
      break;
    case 'open-logs':
      notifyFailure(actions['logs:open']());
      break;
    case 'quit':
      app.quit();
      break;
  }
}

function setupTray(): void {
  tray = new AgentTray({ iconDir: paths.icons, dispatch: dispatchTrayAction });
  tray.init({ status: null, routes: Object.keys(settings.routes()) });
  app.on('will-quit', () => tray.destroy());
}

function setupEnrollment(): void {
  if (pendingEnrollment === null || settings.token() !== null) return;
  // Through the window's own action: the same trade, token kept with safeStorage, and the
  // core restarted with it; a refusal is logged and shown in the window.
  void Promise.resolve(actions['settings:save']({ token: pendingEnrollment })).then((result) => {
    if (!result.ok) supervisor.log('error', result.message ?? 'Enrolment failed.');
  });
  pendingEnrollment = null;
}

/**
 * Desktop notifications about the printers (printer-notices.ts): a printer that has been
 * unable to print for 30 s, once per episode, and its recovery. Read on every status and every
 * 5 s, since a state that lasts changes no status.
 */
function notifyPrinters(): void {
  const printers = supervisor.status()?.printers ?? [];
  for (const notice of printerNotices.update(printers, Date.now())) {
    if (Notification.isSupported()) new Notification(notice).show();
  }
}

function setupAgent(): void {
  supervisor.onStatus((status) => {
    updateTray();
    notifyPrinters();
    broadcast(ipcChannels.statusChanged, status);
  });
  setInterval(notifyPrinters, 5_000).unref();
  supervisor.onLog((line) => broadcast(ipcChannels.logAppended, line));
  void supervisor.configure(settings.connectionConfig());
}

function setStartAtLogin(enabled: boolean): void {
  // A development run must not register the bare Electron binary as a login item.
  if (!app.isPackaged) return;
  applyStartAtLogin(enabled, {
    platform: process.platform,
    app,
    executable: process.env['APPIMAGE'] ?? process.execPath,
    configHome: process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'),
  });
}

function setupStartAtLogin(): void {
  setStartAtLogin(settings.view().startAtLogin);
}

function setupAutoUpdate(): void {
  void startAutoUpdate({
    enabled: settings.autoUpdate(),
    isPackaged: app.isPackaged,
    feed: () => {
      const connection = settings.connectionConfig();
      if (connection === null) return null;
      return {
        serverUrl: connection.serverUrl,
        token: connection.token,
        agentId: supervisor.status()?.agentId ?? null,
        channel: settings.updateChannel(),
      };
    },
    jobsInFlight: () => supervisor.status()?.printing ?? 0,
    log: (level, message) => supervisor.log(level, message),
  });
}

function openWindow(): void {
  if (mainWindow && !mainWindow.isDestroyed()) showWindow(mainWindow);
}

// Start-up, in this order:
// 1. The app's name, then the single-instance lock before anything else: a second copy must
//    quit before it opens settings or the agent's state directory.
// 2. The app scheme before 'ready': Chromium fixes scheme privileges when it starts.
// 3. After 'ready': settings first (safeStorage on Linux works only after 'ready'), then the
//    pre-configuration that writes into them, then the window (IPC accepts only its id), then
//    IPC, then the tray, then the agent, so its first status finds a tray and a window; login
//    item and update checks last, as nothing waits on them.
setupAppIdentity();
if (setupSingleInstance()) {
  setupQuitBehaviour();
  registerAppScheme();
  void app.whenReady().then(() => {
    setupSettings();
    setupProvisioning();
    setupWindow();
    setupIpc();
    setupTray();
    setupAgent();
    setupEnrollment();
    setupStartAtLogin();
    setupAutoUpdate();
    started = true;
  });
}
