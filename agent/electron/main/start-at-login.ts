import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The command-line flag the login start passes, so the app starts in the tray, window hidden. */
export const hiddenFlag = '--hidden';
export const autostartFileName = 'shopdesk-print-agent.desktop';

/** Quotes an Exec argument as the Desktop Entry Specification asks. */
function quoteExecArgument(argument: string): string {
  if (!/[\s"'\\`$]/.test(argument)) return argument;
  return `"${argument.replace(/(["`$\\])/g, '\\$1')}"`;
}

/**
 * The XDG autostart entry (~/.config/autostart/…) that starts the agent at login on Linux
 * desktops. `executable` is the AppImage file when run from one: its mount path changes at
 * every start.
 */
export function linuxAutostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Version=1.0',
    'Name=ShopDesk Print Agent',
    'Comment=Prints ShopDesk jobs on this PC',
    `Exec=${quoteExecArgument(executable)} ${hiddenFlag}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** The bit of Electron's `app` this needs (macOS and Windows keep login items themselves). */
export interface LoginItemApi {
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
}

export interface StartAtLoginTarget {
  platform: NodeJS.Platform;
  app: LoginItemApi;
  /** What to start: the AppImage or the installed executable. */
  executable: string;
  /** ~/.config or $XDG_CONFIG_HOME. */
  configHome: string;
}

export function applyStartAtLogin(enabled: boolean, target: StartAtLoginTarget): void {
  if (target.platform === 'linux') {
    const directory = join(target.configHome, 'autostart');
    const file = join(directory, autostartFileName);
    if (enabled) {
      mkdirSync(directory, { recursive: true });
      writeFileSync(file, linuxAutostartEntry(target.executable));
    } else {
      rmSync(file, { force: true });
    }
    return;
  }
  // macOS ignores args and reports wasOpenedAtLogin instead; Windows passes them on.
  target.app.setLoginItemSettings({ openAtLogin: enabled, args: [hiddenFlag] });
}
