import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentControl } from '../../agent/core/status.ts';
import type { AgentHostOptions } from '../../agent/electron/main/agent-host.ts';
import type { PrintRoute } from '../../shared/printing.ts';
import { agentStatus, ownModulesUnderMocks } from './fixtures.ts';

// safeStorage stand-in: "encrypts" by reversing and prefixing, so the stored bytes differ from
// the token and decrypting gives it back; each test says what the OS offers.
const keyring = vi.hoisted(() => ({
  available: true,
  backend: 'gnome_libsecret' as string,
  userData: '',
}));
vi.mock('electron', () => {
  const safeStorage = {
    isEncryptionAvailable: () => keyring.available,
    getSelectedStorageBackend: () => keyring.backend,
    encryptString: (text: string) => {
      if (!keyring.available) throw new Error('Encryption is not available.');
      return Buffer.from(`enc:${[...text].reverse().join('')}`);
    },
    decryptString: (data: Buffer) => {
      const text = data.toString();
      if (!text.startsWith('enc:')) throw new Error('Error while decrypting the ciphertext');
      return [...text.slice(4)].reverse().join('');
    },
  };
  const app = { getPath: () => keyring.userData, getVersion: () => '0.1.0' };
  const ipcMain = { on: () => {}, handle: () => {} };
  return { safeStorage, app, ipcMain, default: { safeStorage, app, ipcMain } };
});

// electron-store is loaded by Node outside vitest's module graph, where the electron mock does
// not reach; it is Conf plus Electron's paths, so Conf stands in with the same file layout.
vi.mock('electron-store', async () => {
  const { default: Conf } = await import('conf');
  class ElectronStoreStandIn extends Conf {
    constructor(options: { name: string; cwd: string; clearInvalidConfig?: boolean }) {
      super({
        cwd: options.cwd,
        configName: options.name,
        clearInvalidConfig: options.clearInvalidConfig,
      });
    }
  }
  return { default: ElectronStoreStandIn };
});

ownModulesUnderMocks();
const { AgentSupervisor } = await import('../../agent/electron/main/agent-supervisor.ts');
const { openAgentSettings, basicTextWarning, memoryOnlyWarning, undecryptableWarning } =
  await import('../../agent/electron/main/agent-settings.ts');

const token = 'sd_agent_6c1f0e2a9b7d4e31';

function filesContaining(dir: string, needle: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => readFileSync(file, 'utf8').includes(needle));
}

describe('agent settings (electron mocked)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-settings-'));
    keyring.userData = dir;
    keyring.available = true;
    keyring.backend = 'gnome_libsecret';
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores the token encrypted with safeStorage, as base64, never in clear', () => {
    const settings = openAgentSettings(dir, 'linux');
    settings.apply({
      serverUrl: 'https://shop.example.com/',
      token,
      routes: { receipts: 'EPSON' },
    });

    const stored = JSON.parse(readFileSync(settings.path, 'utf8'));
    expect(stored.serverUrl).toBe('https://shop.example.com');
    expect(Buffer.from(stored.encryptedToken, 'base64').toString()).toBe(
      `enc:${[...token].reverse().join('')}`,
    );
    expect(filesContaining(dir, token)).toEqual([]);
    expect(JSON.stringify(settings.view())).not.toContain(token);

    // A new start reads it back through safeStorage.
    const reopened = openAgentSettings(dir, 'linux');
    expect(reopened.token()).toBe(token);
    expect(reopened.connectionConfig()).toEqual({
      serverUrl: 'https://shop.example.com',
      token,
      routes: { receipts: 'EPSON' },
      profiles: {},
    });
    expect(reopened.view()).toMatchObject({
      hasToken: true,
      tokenProtection: 'os-encryption',
      tokenWarning: null,
    });
  });

  it('warns when Linux has no keyring and safeStorage falls back to basic_text', () => {
    keyring.backend = 'basic_text';
    const settings = openAgentSettings(dir, 'linux');
    settings.apply({ token });
    expect(settings.view()).toMatchObject({
      hasToken: true,
      tokenProtection: 'basic-text',
      tokenWarning: basicTextWarning,
    });
    expect(filesContaining(dir, token)).toEqual([]);
  });

  it('does not read the Linux backend on other systems', () => {
    keyring.backend = 'basic_text';
    expect(openAgentSettings(dir, 'win32').view().tokenWarning).toBeNull();
  });

  it('keeps the token in memory only, with a warning, when the PC cannot encrypt', () => {
    keyring.available = false;
    const settings = openAgentSettings(dir, 'linux');
    settings.apply({ serverUrl: 'https://shop.example.com', token });

    expect(settings.token()).toBe(token);
    expect(settings.view()).toMatchObject({
      tokenProtection: 'memory-only',
      tokenWarning: memoryOnlyWarning,
    });
    expect(JSON.parse(readFileSync(settings.path, 'utf8')).encryptedToken).toBeNull();
    expect(filesContaining(dir, token)).toEqual([]);
    // Gone after a restart, as the warning says.
    expect(openAgentSettings(dir, 'linux').token()).toBeNull();
  });

  it('asks for the token again when the saved one cannot be decrypted', () => {
    const settings = openAgentSettings(dir, 'linux');
    settings.apply({ serverUrl: 'https://shop.example.com', token });
    const stored = JSON.parse(readFileSync(settings.path, 'utf8'));
    // What another keyring's ciphertext looks like to this one.
    stored.encryptedToken = Buffer.from('garbage').toString('base64');
    writeFileSync(settings.path, JSON.stringify(stored));

    const reopened = openAgentSettings(dir, 'linux');
    expect(reopened.connectionConfig()).toBeNull();
    expect(reopened.view()).toMatchObject({ hasToken: false, tokenWarning: undecryptableWarning });
  });

  it('changes only the fields a patch names', () => {
    const settings = openAgentSettings(dir, 'linux');
    settings.apply({ serverUrl: 'https://shop.example.com', token, routes: { a4: 'HP' } });
    settings.apply({ routes: { labels: 'Zebra' } });
    expect(settings.connectionConfig()).toEqual({
      serverUrl: 'https://shop.example.com',
      token,
      routes: { labels: 'Zebra' },
      profiles: {},
    });
    const profile = { language: 'zpl' as const, width_mm: 50 };
    settings.apply({ profiles: { labels: profile } });
    expect(settings.connectionConfig()?.profiles).toEqual({ labels: profile });
    expect(settings.view().profiles).toEqual({ labels: profile });
    expect(settings.view().startAtLogin).toBe(true);
  });

  it('keeps the routes the core adopted from the server, without restarting it', async () => {
    const settings = openAgentSettings(dir, 'linux');
    settings.apply({ serverUrl: 'https://shop.example.com', token, routes: { receipts: 'EPSON' } });
    let tell: (routes: PrintRoute[]) => void = () => {};
    const created: AgentHostOptions[] = [];
    const control: AgentControl = {
      start: async () => {},
      stop: async () => {},
      pause: () => {},
      resume: () => {},
      status: () => agentStatus(),
      retry: async () => {},
      reprint: async () => {},
      testPrint: async () => {},
      listPrinters: async () => [],
      onStatus: () => () => {},
      onLog: () => () => {},
      onRoutesAdopted(listener) {
        tell = listener;
        return () => {};
      },
    };
    const supervisor = new AgentSupervisor({
      createControl: (options) => {
        created.push(options);
        return control;
      },
      stateDir: join(dir, 'state'),
      logFile: null,
      keepRoutes: (routes) => settings.keepServerRoutes(routes),
    });
    await supervisor.configure(settings.connectionConfig());
    const profile = { language: 'zpl' as const, width_mm: 100 };
    tell([
      { name: 'receipts', printer: 'EPSON', enabled: false, options: {} },
      { name: 'labels', printer: 'Zebra', enabled: true, options: {}, profile },
      { name: 'a4', printer: 'HP', enabled: true, options: {} },
    ]);
    // A route turned off in the console has no place in the window's settings: left out.
    const reopened = openAgentSettings(dir, 'linux');
    expect(reopened.connectionConfig()).toMatchObject({
      routes: { labels: 'Zebra', a4: 'HP' },
      profiles: { labels: profile },
    });
    expect(created).toHaveLength(1);
  });
});
