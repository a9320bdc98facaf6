import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentControl, AgentStatus } from '../../agent/core/status.ts';
import { contentSecurityPolicy } from '../../agent/electron/common/content-security-policy.ts';
import { invokeArgumentSchemas } from '../../agent/electron/common/ipc-schemas.ts';
import { agentStatus, ownModulesUnderMocks, printer, recentJob } from './fixtures.ts';

/**
 * The whole main process start-up (main/index.ts) against a stand-in of every Electron module
 * it uses, and a fake agent core: what gets created, in which state, with which settings.
 */
type Listener = (...args: unknown[]) => void;

const fake = vi.hoisted(() => {
  const emitter = () => {
    const listeners = new Map<string, Listener[]>();
    return {
      listeners,
      on(event: string, listener: Listener) {
        listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      },
      emit(event: string, ...args: unknown[]) {
        for (const listener of listeners.get(event) ?? []) listener(...args);
      },
    };
  };
  const state = { userData: '', lock: true, ready: Promise.resolve() as Promise<void> };
  const appEvents = emitter();
  const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const protocolHandlers = new Map<string, (request: Request) => Promise<Response>>();

  class BrowserWindow {
    static instances: BrowserWindow[] = [];
    readonly events = emitter();
    readonly webContents = {
      id: 11,
      on: () => {},
      setWindowOpenHandler: () => {},
      send: () => {},
      getPrintersAsync: async () => [],
    };
    readonly hide = vi.fn();
    readonly show = () => {};
    readonly focus = () => {};
    readonly loadURL: (url: string) => Promise<void>;
    readonly options: Record<string, unknown>;
    loadedUrl: string | null = null;
    constructor(options: Record<string, unknown>) {
      this.options = options;
      this.loadURL = async (url: string) => {
        this.loadedUrl = url;
      };
      BrowserWindow.instances.push(this);
    }
    on(event: string, listener: Listener) {
      this.events.on(event, listener);
    }
    once(event: string, listener: Listener) {
      this.events.on(event, listener);
    }
    isMinimized() {
      return false;
    }
    isDestroyed() {
      return false;
    }
    restore() {}
  }

  class Tray {
    static instances: Tray[] = [];
    image: { path: string };
    tooltip = '';
    menu: unknown = null;
    destroyed = false;
    constructor(image: { path: string }) {
      this.image = image;
      Tray.instances.push(this);
    }
    on() {}
    setImage(image: { path: string }) {
      this.image = image;
    }
    setToolTip(text: string) {
      this.tooltip = text;
    }
    setContextMenu(menu: unknown) {
      this.menu = menu;
    }
    destroy() {
      this.destroyed = true;
    }
  }

  class Notification {
    static shown: Array<{ title: string; body: string }> = [];
    static isSupported() {
      return true;
    }
    readonly options: { title: string; body: string };
    constructor(options: { title: string; body: string }) {
      this.options = options;
    }
    show() {
      Notification.shown.push(this.options);
    }
  }

  const app = {
    isPackaged: false,
    setName: () => {},
    setAppUserModelId: () => {},
    requestSingleInstanceLock: () => state.lock,
    quitCalls: 0,
    quit() {
      app.quitCalls += 1;
    },
    exit: () => {},
    on: appEvents.on,
    whenReady: () => state.ready,
    getPath: (name: string) => `${state.userData}/${name}`,
    getVersion: () => '0.1.0',
    setLoginItemSettings: () => {},
  };
  const electron = {
    app,
    BrowserWindow,
    Notification,
    Tray,
    Menu: { buildFromTemplate: (template: unknown) => ({ template }) },
    nativeImage: { createFromPath: (path: string) => ({ path }) },
    protocol: { registerSchemesAsPrivileged: (schemes: unknown) => (fake.schemes = schemes) },
    session: {
      defaultSession: {
        protocol: {
          handle: (scheme: string, handler: (request: Request) => Promise<Response>) =>
            protocolHandlers.set(scheme, handler),
        },
        webRequest: { onHeadersReceived: () => {} },
        setPermissionRequestHandler: () => {},
        setPermissionCheckHandler: () => {},
      },
    },
    net: {
      fetch: async () =>
        new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }),
    },
    shell: { openPath: async () => '', openExternal: async () => {} },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (text: string) => Buffer.from(`enc:${[...text].reverse().join('')}`),
      decryptString: (data: Buffer) => [...data.toString().slice(4)].reverse().join(''),
    },
    ipcMain: {
      handle: (channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) =>
        ipcHandlers.set(channel, handler),
      removeHandler: (channel: string) => ipcHandlers.delete(channel),
      on: () => {},
    },
  };
  const fake = {
    state,
    appEvents,
    ipcHandlers,
    protocolHandlers,
    electron,
    schemes: null as unknown,
    runtimes: [] as Array<{
      options: Record<string, unknown>;
      emit: (status: AgentStatus) => void;
    }>,
  };
  return fake;
});

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));
vi.mock('electron-store', async () => ({
  default: await (await import('./fixtures.ts')).electronStoreStandIn(),
}));
vi.mock('../../agent/core/index.ts', () => ({
  createAgentRuntime: (options: Record<string, unknown>): AgentControl => {
    let status = agentStatus({ connection: 'starting', serverUrl: String(options['serverUrl']) });
    const listeners = new Set<(status: AgentStatus) => void>();
    const emit = (next: AgentStatus) => {
      status = next;
      for (const listener of listeners) listener(next);
    };
    fake.runtimes.push({ options, emit });
    return {
      start: async () => emit({ ...status, connection: 'connected' }),
      stop: async () => {},
      pause: () => {},
      resume: () => {},
      status: () => status,
      retry: async (jobId: number) => {
        if (jobId === 13) throw new Error('HTTP 409: job 13 is not failed');
      },
      reprint: async () => {},
      testPrint: async () => {},
      listPrinters: async () => [],
      onStatus: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      onLog: () => () => {},
    };
  },
}));

const token = 'sd_agent_wiring_5b8c';
const flags = [
  '--server',
  'https://shop.example.com',
  '--token',
  token,
  '--route',
  'receipts=EPSON_TM_T20',
];

async function startMain(args: string[]): Promise<void> {
  const savedArgv = process.argv;
  process.argv = [process.execPath, 'main.js', ...args];
  try {
    await import('../../agent/electron/main/index.ts');
  } finally {
    process.argv = savedArgv;
  }
  await fake.state.ready;
  await new Promise((done) => setTimeout(done, 50));
}

function ownEvent(id = 11) {
  return { sender: { id }, senderFrame: { url: 'shopdesk-app://window/index.html', parent: null } };
}

ownModulesUnderMocks();

describe('main process start-up (electron mocked)', () => {
  beforeEach(() => {
    vi.resetModules();
    fake.state.userData = mkdtempSync(join(tmpdir(), 'shopdesk-main-'));
    fake.state.lock = true;
    fake.appEvents.listeners.clear();
    fake.ipcHandlers.clear();
    fake.protocolHandlers.clear();
    fake.electron.BrowserWindow.instances = [];
    fake.electron.Tray.instances = [];
    fake.electron.app.quitCalls = 0;
    fake.electron.Notification.shown = [];
    fake.runtimes = [];
  });
  afterEach(() => rmSync(fake.state.userData, { recursive: true, force: true }));

  it('a second copy quits at once and opens nothing', async () => {
    fake.state.lock = false;
    await startMain(flags);
    expect(fake.electron.app.quitCalls).toBe(1);
    expect(fake.electron.BrowserWindow.instances).toHaveLength(0);
    expect(fake.electron.Tray.instances).toHaveLength(0);
    expect(fake.runtimes).toHaveLength(0);
  });

  it('opens a sandboxed, isolated window on its own scheme, served with the CSP header', async () => {
    await startMain(flags);
    const [window] = fake.electron.BrowserWindow.instances;
    expect(window?.options['webPreferences']).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      preload: expect.stringMatching(/preload\.cjs$/),
    });
    expect(window?.loadedUrl).toBe('shopdesk-app://window/index.html');
    expect(fake.schemes).toEqual([
      expect.objectContaining({
        scheme: 'shopdesk-app',
        privileges: expect.objectContaining({ secure: true }),
      }),
    ]);
    const serve = fake.protocolHandlers.get('shopdesk-app')!;
    const page = await serve(new Request('shopdesk-app://window/index.html'));
    expect(page.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
    expect((await serve(new Request('shopdesk-app://window/..%2fmain.js'))).status).toBe(404);
  });

  it('hides the window on close unless the app is quitting', async () => {
    await startMain(flags);
    const [window] = fake.electron.BrowserWindow.instances;
    const close = { prevented: false, preventDefault: () => (close.prevented = true) };
    window?.events.emit('close', close);
    expect(close.prevented).toBe(true);
    expect(window?.hide).toHaveBeenCalledTimes(1);

    fake.appEvents.emit('before-quit');
    const closeWhileQuitting = {
      prevented: false,
      preventDefault: () => (closeWhileQuitting.prevented = true),
    };
    window?.events.emit('close', closeWhileQuitting);
    expect(closeWhileQuitting.prevented).toBe(false);
  });

  it('takes server, token and routes from the command line, keeps the token encrypted, runs the core', async () => {
    await startMain(flags);
    expect(fake.runtimes).toHaveLength(1);
    expect(fake.runtimes[0]?.options).toMatchObject({
      serverUrl: 'https://shop.example.com',
      token,
      routes: { receipts: 'EPSON_TM_T20' },
      stateDir: join(fake.state.userData, 'userData', 'agent-state'),
    });
    const files = readdirSync(fake.state.userData, { recursive: true, withFileTypes: true }).filter(
      (entry) => entry.isFile(),
    );
    expect(files.map((entry) => entry.name)).toContain('settings.json');
    for (const entry of files) {
      expect(readFileSync(join(entry.parentPath, entry.name), 'utf8')).not.toContain(token);
    }
  });

  it('answers its own window over IPC and refuses any other sender', async () => {
    await startMain(flags);
    expect([...fake.ipcHandlers.keys()].sort()).toEqual(Object.keys(invokeArgumentSchemas).sort());
    const getSnapshot = fake.ipcHandlers.get('app:get-snapshot')!;
    const snapshot = (await getSnapshot(ownEvent())) as { settings: Record<string, unknown> };
    expect(snapshot.settings).toMatchObject({
      serverUrl: 'https://shop.example.com',
      hasToken: true,
    });
    expect(JSON.stringify(snapshot)).not.toContain(token);
    await expect(async () => getSnapshot(ownEvent(12))).rejects.toThrow(
      /not sent by the agent window/,
    );
  });

  it("shows the core's status in the tray picture and tooltip", async () => {
    await startMain(flags);
    const [tray] = fake.electron.Tray.instances;
    expect(tray?.image.path).toMatch(/tray-connected\.png$/);
    expect(tray?.tooltip).toContain('Connected to shop.example.com');

    fake.runtimes[0]?.emit(
      agentStatus({ recentJobs: [recentJob({ id: 9, status: 'failed', error: 'Out of paper' })] }),
    );
    expect(tray?.image.path).toMatch(/tray-failed\.png$/);
    expect(tray?.tooltip).toContain('1 job failed');

    fake.runtimes[0]?.emit(agentStatus({ connection: 'unreachable' }));
    expect(tray?.image.path).toMatch(/tray-unreachable\.png$/);
  });

  it('shows a desktop notification for a printer unable to print for 30 s, once, and when it prints again', async () => {
    // The rule itself: printer-notices.test.ts. Here, that main shows what it says.
    await startMain(flags);
    let now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    const paperOut = printer('EPSON_TM_T20', { state: 'stopped', message: 'Paper out' });
    fake.runtimes[0]?.emit(agentStatus({ printers: [paperOut] }));
    now += 31_000;
    fake.runtimes[0]?.emit(agentStatus({ printers: [paperOut] }));
    fake.runtimes[0]?.emit(agentStatus({ printers: [paperOut] }));
    const titles = () => fake.electron.Notification.shown.map(({ title }) => title);
    expect(titles()).toEqual(['EPSON_TM_T20 needs attention']);
    fake.runtimes[0]?.emit(agentStatus());
    expect(titles()).toEqual(['EPSON_TM_T20 needs attention', 'EPSON_TM_T20 prints again']);
    clock.mockRestore();
  });

  it('without settings, runs no core and the tray says it is not set up', async () => {
    await startMain([]);
    expect(fake.runtimes).toHaveLength(0);
    expect(fake.electron.Tray.instances[0]?.tooltip).toContain('Not set up');
  });

  it('applies the machine-wide agent.json at the first start only, except autoUpdate', async () => {
    const machineFile = join(fake.state.userData, 'agent.json');
    const write = (routes: Record<string, string>, autoUpdate: boolean) =>
      writeFileSync(
        machineFile,
        JSON.stringify({ server: 'https://shop.example.com', token, routes, autoUpdate }),
      );
    const settingsFile = join(fake.state.userData, 'userData', 'settings.json');

    write({ receipts: 'EPSON_TM_T20' }, false);
    await startMain(['--config', machineFile]);
    expect(fake.runtimes[0]?.options).toMatchObject({
      token,
      routes: { receipts: 'EPSON_TM_T20' },
    });

    // Settings are the user's from then on (the window may have changed them): a later file
    // does not override them.
    vi.resetModules();
    fake.runtimes = [];
    write({ receipts: 'Other_Printer' }, true);
    await startMain(['--config', machineFile]);
    expect(fake.runtimes[0]?.options).toMatchObject({ routes: { receipts: 'EPSON_TM_T20' } });
    expect(JSON.parse(readFileSync(settingsFile, 'utf8'))).toMatchObject({ autoUpdate: true });
  });

  it('runs tray menu clicks, and shows a failed retry as a notification', async () => {
    await startMain(flags);
    fake.runtimes[0]?.emit(
      agentStatus({
        recentJobs: [
          recentJob({ id: 12, status: 'failed' }),
          recentJob({ id: 13, status: 'failed' }),
        ],
      }),
    );
    type Item = { label?: string; submenu?: Item[]; click?: () => void };
    const menu = (fake.electron.Tray.instances[0]!.menu as { template: Item[] }).template;
    const jobs = menu.find((item) => item.label === 'Recent jobs')?.submenu ?? [];
    const retry = (id: number) =>
      jobs
        .find((item) => item.label?.startsWith(`#${id} `))
        ?.submenu?.find((item) => item.label === 'Retry');

    expect(retry(12)?.click).toBeTypeOf('function');
    retry(12)?.click?.();
    await new Promise((done) => setTimeout(done, 20));
    expect(fake.electron.Notification.shown).toEqual([]);

    retry(13)?.click?.();
    await new Promise((done) => setTimeout(done, 20));
    expect(fake.electron.Notification.shown).toEqual([
      {
        title: 'ShopDesk Print Agent',
        body: 'Retry of job #13 failed: HTTP 409: job 13 is not failed',
      },
    ]);
  });

  it("takes a second start's flags over and restarts the core with them", async () => {
    await startMain(flags);
    fake.appEvents.emit('second-instance', {}, [
      process.execPath,
      'main.js',
      '--route',
      'labels=Zebra_GK420',
    ]);
    await new Promise((done) => setTimeout(done, 20));
    expect(fake.runtimes).toHaveLength(2);
    expect(fake.runtimes[1]?.options).toMatchObject({ token, routes: { labels: 'Zebra_GK420' } });
  });
});
