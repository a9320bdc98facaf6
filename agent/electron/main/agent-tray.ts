import { join } from 'node:path';
import { Menu, type MenuItemConstructorOptions, nativeImage, Tray } from 'electron';
import {
  buildTrayMenu,
  type TrayAction,
  type TrayMenuItem,
  type TrayMenuState,
} from './tray-menu.ts';
import { type TrayIconName, trayStateFor } from './tray-state.ts';

function toElectronMenu(
  items: TrayMenuItem[],
  dispatch: (action: TrayAction) => void,
): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    if (item.type === 'separator') return { type: 'separator' };
    if (item.type === 'submenu') {
      return {
        label: item.label,
        enabled: item.enabled,
        submenu: toElectronMenu(item.submenu, dispatch),
      };
    }
    const { action } = item;
    return {
      label: item.label,
      enabled: item.enabled,
      ...(action && { click: () => dispatch(action) }),
    };
  });
}

/**
 * The tray icon: its picture and tooltip say the agent's state, its menu is
 * `buildTrayMenu(state)`. Clicks go out through `dispatch`; the class decides nothing itself.
 */
export class AgentTray {
  #tray: Tray | null = null;
  #icon: TrayIconName | null = null;
  readonly #iconDir: string;
  readonly #dispatch: (action: TrayAction) => void;

  constructor(options: { iconDir: string; dispatch: (action: TrayAction) => void }) {
    this.#iconDir = options.iconDir;
    this.#dispatch = options.dispatch;
  }

  init(state: TrayMenuState): void {
    this.#tray = new Tray(this.#image('idle'));
    // Windows opens the window on a click, the menu on the right button. macOS opens the menu
    // on any click (a second action there would fight it); most Linux trays show only the menu.
    if (process.platform !== 'darwin') {
      this.#tray.on('click', () => this.#dispatch({ kind: 'open-window' }));
    }
    this.update(state);
  }

  update(state: TrayMenuState): void {
    const tray = this.#tray;
    if (!tray) return;
    const { icon, tooltip } = trayStateFor(state.status);
    if (icon !== this.#icon) {
      tray.setImage(this.#image(icon));
      this.#icon = icon;
    }
    tray.setToolTip(tooltip);
    tray.setContextMenu(
      Menu.buildFromTemplate(toElectronMenu(buildTrayMenu(state), this.#dispatch)),
    );
  }

  destroy(): void {
    this.#tray?.destroy();
    this.#tray = null;
    this.#icon = null;
  }

  #image(icon: TrayIconName) {
    // tray-<state>.png is 16 px with a @2x sibling that Electron picks on HiDPI screens.
    return nativeImage.createFromPath(join(this.#iconDir, `tray-${icon}.png`));
  }
}
