/**
 * Auto-update, OFF unless IT turns it on (docs/it-guide.md, "Auto-update"): a shop PC that
 * prints must not change under the staff's hands, and many sites roll out through their own
 * software distribution instead.
 *
 * electron-updater is not a dependency of this build. It is loaded by name at run time, so
 * that turning updates on is: add electron-updater to package.json, switch this import to a
 * static `import { autoUpdater } from 'electron-updater'` (so esbuild bundles it), set the feed
 * URL under `publish` in electron-builder.yml, and set `"autoUpdate": true` in agent.json.
 */
const updaterModuleName = 'electron-updater';

interface AutoUpdater {
  autoDownload: boolean;
  checkForUpdatesAndNotify(): Promise<unknown>;
}

/** Six hours: often enough to spread a fix within a working day, rare enough to be quiet. */
export const updateCheckIntervalMs = 6 * 60 * 60 * 1000;

export async function startAutoUpdate(options: {
  enabled: boolean;
  isPackaged: boolean;
  log: (level: 'info' | 'warn', message: string) => void;
  loadUpdater?: () => Promise<{ autoUpdater: AutoUpdater }>;
}): Promise<(() => void) | null> {
  if (!options.enabled || !options.isPackaged) return null;
  let updater: AutoUpdater;
  try {
    const load = options.loadUpdater ?? (() => import(updaterModuleName));
    updater = (await load()).autoUpdater;
  } catch {
    options.log('warn', 'Auto-update is on, but this build has no electron-updater: not checking.');
    return null;
  }
  const check = () =>
    updater.checkForUpdatesAndNotify().catch((error: unknown) => {
      options.log('warn', `Update check failed: ${error instanceof Error ? error.message : error}`);
    });
  options.log('info', 'Auto-update is on: checking for a new version.');
  void check();
  const timer = setInterval(check, updateCheckIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
