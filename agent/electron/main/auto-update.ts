/**
 * Updates from the ShopDesk server (docs/it-guide.md, "Roll out a version"): electron-updater's
 * generic provider reads `<server>/api/v1/printing/updates/<channel>/`, which serves the builds
 * IT published with `shopdesk release add` to the agents in their rollout. OFF unless IT turns
 * it on (`"autoUpdate": true` in agent.json, or --auto-update): a PC that prints receipts
 * changes when IT says so. Checked at start and every six hours; the build is downloaded in
 * the background and its SHA-512 checked by electron-updater; it is installed only while no
 * job is in the printer's hands, at the first such moment (checked every few seconds).
 */

/** What this uses of electron-updater's AppUpdater (the tests hand in a fake). */
export interface Updater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  requestHeaders: Record<string, string> | null;
  setFeedURL(options: { provider: 'generic'; url: string }): void;
  checkForUpdates(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Where and as whom the feed is read; null while the agent is not set up. */
export interface UpdateFeed {
  serverUrl: string;
  token: string;
  agentId: string | null;
  channel: string;
}

/** Six hours: often enough to spread a fix within a working day, rare enough to be quiet. */
export const updateCheckIntervalMs = 6 * 60 * 60 * 1000;
/** How often a downloaded update looks for a moment with no job in flight. */
export const installCheckMs = 5000;

export const feedUrlOf = (feed: Pick<UpdateFeed, 'serverUrl' | 'channel'>): string =>
  `${feed.serverUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1/printing/updates/${encodeURIComponent(feed.channel)}/`;

export async function startAutoUpdate(options: {
  enabled: boolean;
  isPackaged: boolean;
  feed: () => UpdateFeed | null;
  /** Jobs handed to a printer and not reported yet (the agent's status `printing`). */
  jobsInFlight: () => number;
  log: (level: 'info' | 'warn', message: string) => void;
  loadUpdater?: () => Promise<{ autoUpdater: Updater }>;
  checkEveryMs?: number;
  installCheckMs?: number;
}): Promise<(() => void) | null> {
  if (!options.enabled || !options.isPackaged) return null;
  let updater: Updater;
  try {
    const load =
      options.loadUpdater ??
      (async () => (await import('electron-updater')) as unknown as { autoUpdater: Updater });
    updater = (await load()).autoUpdater;
  } catch (error) {
    options.log('warn', `Auto-update is on, but electron-updater did not load: ${error}`);
    return null;
  }
  updater.autoDownload = true;
  // Installed when no job is in flight (below), never at an arbitrary quit.
  updater.autoInstallOnAppQuit = false;
  let installTimer: NodeJS.Timeout | null = null;
  const installWhenIdle = (version: string) => {
    if (installTimer) return;
    const tryInstall = () => {
      if (options.jobsInFlight() > 0) return false;
      if (installTimer) clearInterval(installTimer);
      installTimer = null;
      options.log('info', `Installing version ${version} and restarting.`);
      updater.quitAndInstall(true, true);
      return true;
    };
    if (tryInstall()) return;
    options.log('info', `Version ${version} is ready; it installs once the job in hand is done.`);
    installTimer = setInterval(tryInstall, options.installCheckMs ?? installCheckMs);
    installTimer.unref();
  };
  updater.on('update-downloaded', (info) => installWhenIdle(info.version));
  updater.on('error', (error) => options.log('warn', `Update failed: ${error.message}`));
  const check = () => {
    const feed = options.feed();
    if (feed === null) return;
    updater.setFeedURL({ provider: 'generic', url: feedUrlOf(feed) });
    updater.requestHeaders = {
      authorization: `Bearer ${feed.token}`,
      ...(feed.agentId !== null && { 'x-agent-id': feed.agentId }),
    };
    updater.checkForUpdates().catch((error: unknown) => {
      options.log('warn', `Update check failed: ${error instanceof Error ? error.message : error}`);
    });
  };
  options.log('info', 'Auto-update is on: checking the server for a new version.');
  check();
  const timer = setInterval(check, options.checkEveryMs ?? updateCheckIntervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (installTimer) clearInterval(installTimer);
  };
}
