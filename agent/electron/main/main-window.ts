import { pathToFileURL } from 'node:url';
import { BrowserWindow, net, protocol, type Session, shell } from 'electron';
import { contentSecurityPolicy } from '../common/content-security-policy.ts';
import { appScheme, isAppPageUrl, resolveRendererFile, windowPageUrl } from './app-protocol.ts';

/** Must run before app 'ready': a scheme's privileges are fixed when Chromium starts. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: appScheme, privileges: { standard: true, secure: true, supportFetchAPI: false } },
  ]);
}

const securityHeaders = {
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * Serves the bundled renderer from `shopdesk-app://window/…` with the CSP header, adds the same
 * header to anything else the session loads, and refuses every permission (camera, clipboard,
 * notifications…): the window needs none.
 */
export function secureSession(session: Session, rendererDir: string): void {
  session.protocol.handle(appScheme, async (request) => {
    const file = resolveRendererFile(rendererDir, request.url);
    if (file === null) return new Response('Not found', { status: 404 });
    let response: Response;
    try {
      response = await net.fetch(pathToFileURL(file).toString());
    } catch {
      return new Response('Not found', { status: 404 });
    }
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(securityHeaders)) headers.set(name, value);
    return new Response(response.body, { status: response.status, headers });
  });
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [contentSecurityPolicy],
      },
    });
  });
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

export interface MainWindowOptions {
  preloadPath: string;
  iconPath: string;
  /** Asked on close: true lets the window close (we are quitting), false hides it to the tray. */
  isQuitting: () => boolean;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 980,
    height: 760,
    minWidth: 720,
    minHeight: 520,
    show: false,
    title: 'ShopDesk Print Agent',
    icon: options.iconPath,
    autoHideMenuBar: true,
    backgroundColor: '#f5f6f8',
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
    },
  });

  // The window is the agent's face, not its life: closing it leaves the agent printing.
  window.on('close', (event) => {
    if (!options.isQuitting()) {
      event.preventDefault();
      window.hide();
    }
  });
  // It never goes anywhere but its own page; links open in the user's browser.
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAppPageUrl(url)) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-attach-webview', (event) => event.preventDefault());

  void window.loadURL(windowPageUrl);
  return window;
}

export function showWindow(window: BrowserWindow): void {
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}
