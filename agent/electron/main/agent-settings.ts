import { safeStorage } from 'electron';
import ElectronStore from 'electron-store';
import { z } from 'zod';
import { type PrinterProfile, printerProfileSchema } from '../../../shared/printer-profiles.ts';
import type { PrintRoute } from '../../../shared/printing.ts';
import { routePrinterNames } from '../../../shared/wait-reasons.ts';
import type {
  PrinterByRoute,
  SettingsPatch,
  SettingsView,
  TokenProtection,
} from '../common/ipc.ts';
import type { AgentConnectionConfig } from './agent-supervisor.ts';

/** What settings.json holds. The token is only ever there encrypted (base64 of safeStorage). */
const storedSettingsSchema = z.object({
  serverUrl: z.string().default(''),
  routes: z.record(z.string(), z.string()).default({}),
  /** Route name → printer profile (shared/printer-profiles.ts), as the window saved it. */
  profiles: z.record(z.string(), printerProfileSchema).default({}),
  startAtLogin: z.boolean().default(true),
  encryptedToken: z.string().nullable().default(null),
  /** Set by IT only (agent.json or --auto-update); the window does not offer it. */
  autoUpdate: z.boolean().default(false),
  /** The update channel the feed is read from (agent.json's updateChannel). */
  updateChannel: z.string().default('stable'),
  /** The machine-wide pre-configuration was applied once; it is not applied again. */
  provisioned: z.boolean().default(false),
});
type StoredSettings = z.infer<typeof storedSettingsSchema>;

/** The part of Electron's safeStorage this uses (Linux adds getSelectedStorageBackend). */
export type TokenEncryption = Pick<
  typeof safeStorage,
  'isEncryptionAvailable' | 'encryptString' | 'decryptString' | 'getSelectedStorageBackend'
>;

export const basicTextWarning =
  'This PC has no password keyring (GNOME Keyring or KWallet), so the token is stored with a ' +
  'fixed key that anyone who can read your files can undo. Install a keyring, or run the ' +
  'headless agent as a service.';
export const memoryOnlyWarning =
  'This PC cannot encrypt the token, so it is not saved: enter it again after each restart, ' +
  'or run the headless agent as a service.';
export const undecryptableWarning =
  'The saved token could not be decrypted (the keyring changed?). Enter the token again.';

/**
 * The agent's settings: server address, token, route → printer mapping, start at login.
 * electron-store keeps them in `<userData>/settings.json`; the token goes through safeStorage
 * (the OS keychain, DPAPI or libsecret) and, when this PC cannot encrypt, stays in memory only.
 */
export class AgentSettings {
  readonly #store: ElectronStore<StoredSettings>;
  readonly #encryption: TokenEncryption;
  readonly #platform: NodeJS.Platform;
  #memoryToken: string | null = null;
  #tokenUnreadable = false;

  constructor(options: {
    store: ElectronStore<StoredSettings>;
    encryption: TokenEncryption;
    platform: NodeJS.Platform;
  }) {
    this.#store = options.store;
    this.#encryption = options.encryption;
    this.#platform = options.platform;
  }

  get path(): string {
    return this.#store.path;
  }

  #read(): StoredSettings {
    const parsed = storedSettingsSchema.safeParse(this.#store.store);
    return parsed.success ? parsed.data : storedSettingsSchema.parse({});
  }

  tokenProtection(): TokenProtection {
    if (!this.#encryption.isEncryptionAvailable()) return 'memory-only';
    if (
      this.#platform === 'linux' &&
      this.#encryption.getSelectedStorageBackend() === 'basic_text'
    ) {
      return 'basic-text';
    }
    return 'os-encryption';
  }

  #tokenWarning(protection: TokenProtection): string | null {
    if (this.#tokenUnreadable) return undecryptableWarning;
    if (protection === 'basic-text') return basicTextWarning;
    if (protection === 'memory-only') return memoryOnlyWarning;
    return null;
  }

  token(): string | null {
    if (this.#memoryToken !== null) return this.#memoryToken;
    const { encryptedToken } = this.#read();
    if (encryptedToken === null || !this.#encryption.isEncryptionAvailable()) return null;
    try {
      return this.#encryption.decryptString(Buffer.from(encryptedToken, 'base64'));
    } catch {
      this.#tokenUnreadable = true;
      return null;
    }
  }

  view(): SettingsView {
    const stored = this.#read();
    const hasToken = this.token() !== null;
    const protection = this.tokenProtection();
    return {
      serverUrl: stored.serverUrl,
      routes: stored.routes,
      profiles: stored.profiles,
      startAtLogin: stored.startAtLogin,
      hasToken,
      tokenProtection: protection,
      tokenWarning: this.#tokenWarning(protection),
    };
  }

  /** What the agent core needs to run, or null while the address or token is missing. */
  connectionConfig(): AgentConnectionConfig | null {
    const { serverUrl, routes, profiles } = this.#read();
    const token = this.token();
    if (!serverUrl || token === null) return null;
    return { serverUrl, token, routes, profiles };
  }

  routes(): PrinterByRoute {
    return this.#read().routes;
  }

  isProvisioned(): boolean {
    const stored = this.#read();
    return stored.provisioned || stored.serverUrl !== '';
  }

  autoUpdate(): boolean {
    return this.#read().autoUpdate;
  }

  updateChannel(): string {
    return this.#read().updateChannel;
  }

  /**
   * Keeps the routes the agent adopted from the server (edited in the console) as this PC's
   * routes, so that the next start saves them rather than the ones they replaced. The window
   * has no "off" for a route: a route turned off in the console is left out (docs/agent.md).
   */
  keepServerRoutes(routes: readonly PrintRoute[]): void {
    const printers: Record<string, string> = {};
    const profiles: Record<string, PrinterProfile> = {};
    for (const route of routes) {
      if (!route.enabled) continue;
      printers[route.name] = routePrinterNames(route).join(','); // the first, then its backups
      if (route.profile) profiles[route.name] = route.profile;
    }
    this.apply({ routes: printers, profiles });
  }

  apply(
    patch: SettingsPatch & { provisioned?: boolean; autoUpdate?: boolean; updateChannel?: string },
  ): void {
    const stored = this.#read();
    const next: StoredSettings = {
      ...stored,
      ...(patch.serverUrl !== undefined && { serverUrl: patch.serverUrl.replace(/\/+$/, '') }),
      ...(patch.routes !== undefined && { routes: patch.routes }),
      ...(patch.profiles !== undefined && { profiles: patch.profiles }),
      ...(patch.startAtLogin !== undefined && { startAtLogin: patch.startAtLogin }),
      ...(patch.provisioned !== undefined && { provisioned: patch.provisioned }),
      ...(patch.autoUpdate !== undefined && { autoUpdate: patch.autoUpdate }),
      ...(patch.updateChannel !== undefined && { updateChannel: patch.updateChannel }),
    };
    if (patch.token !== undefined) {
      this.#tokenUnreadable = false;
      if (this.#encryption.isEncryptionAvailable()) {
        next.encryptedToken = this.#encryption.encryptString(patch.token).toString('base64');
        this.#memoryToken = null;
      } else {
        // Never written down in clear: kept for this run only (the window says so).
        next.encryptedToken = null;
        this.#memoryToken = patch.token;
      }
    }
    this.#store.store = next;
  }
}

/** Opens `<userDataDir>/settings.json`; call after app 'ready' (safeStorage needs it on Linux). */
export function openAgentSettings(
  userDataDir: string,
  platform: NodeJS.Platform = process.platform,
): AgentSettings {
  const store = new ElectronStore<StoredSettings>({
    name: 'settings',
    cwd: userDataDir,
    clearInvalidConfig: true,
  });
  return new AgentSettings({ store, encryption: safeStorage, platform });
}
