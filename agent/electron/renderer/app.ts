import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { PrinterInfo } from '../../../shared/printing.ts';
import { describeNotReady } from '../../core/printer-readiness.ts';
import type { AgentStatus, LogLine } from '../../core/status.ts';
import {
  type ActionResult,
  bridgeGlobalName,
  type SettingsView,
  type ShopDeskBridge,
} from '../common/ipc.ts';
import { byId, el, formatTime, showMessage } from './dom.ts';
import { jobsSummary, renderJobRow } from './jobs-view.ts';
import { printerListOf, type RouteDraft, renderRouteRow, routeDraftOf } from './routes-view.ts';

/**
 * The settings and status window. Everything it does goes through `window.shopdesk`, the
 * preload's bridge; it holds a draft of the routes until saved and otherwise just shows what
 * the main process pushes.
 */
const bridge = (window as unknown as Record<string, ShopDeskBridge>)[bridgeGlobalName]!;

const routeNamePattern = /^[a-z0-9._-]{1,64}$/;
const logLimit = 200;

const state = {
  settings: null as SettingsView | null,
  status: null as AgentStatus | null,
  printers: [] as PrinterInfo[],
  routes: [] as RouteDraft[],
  routesDirty: false,
  log: [] as LogLine[],
};

const ui = {
  pill: byId<HTMLSpanElement>('connection-pill'),
  pauseToggle: byId<HTMLButtonElement>('pause-toggle'),
  banners: byId<HTMLDivElement>('banners'),
  jobsBody: byId<HTMLTableSectionElement>('jobs-body'),
  jobsTable: byId<HTMLTableElement>('jobs-table'),
  jobsEmpty: byId<HTMLParagraphElement>('jobs-empty'),
  jobsSummary: byId<HTMLSpanElement>('jobs-summary'),
  jobsMessage: byId<HTMLParagraphElement>('jobs-message'),
  routesList: byId<HTMLDivElement>('routes-list'),
  unmapped: byId<HTMLDivElement>('unmapped-routes'),
  addRouteForm: byId<HTMLFormElement>('add-route-form'),
  newRouteName: byId<HTMLInputElement>('new-route-name'),
  saveRoutes: byId<HTMLButtonElement>('save-routes'),
  routesMessage: byId<HTMLParagraphElement>('routes-message'),
  refreshPrinters: byId<HTMLButtonElement>('refresh-printers'),
  serverForm: byId<HTMLFormElement>('server-form'),
  serverUrl: byId<HTMLInputElement>('server-url'),
  token: byId<HTMLInputElement>('token'),
  tokenHint: byId<HTMLSpanElement>('token-hint'),
  startAtLogin: byId<HTMLInputElement>('start-at-login'),
  testConnection: byId<HTMLButtonElement>('test-connection'),
  serverMessage: byId<HTMLParagraphElement>('server-message'),
  log: byId<HTMLPreElement>('log'),
  openLogs: byId<HTMLButtonElement>('open-logs'),
};

// ---- status and banners ------------------------------------------------------------------

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function renderStatus(): void {
  const { status } = state;
  const pill = ((): [string, string] => {
    if (!status) return ['Not set up', 'idle'];
    if (status.connection === 'unreachable') return ['Server unreachable', 'bad'];
    if (status.connection === 'unauthorized') return ['Token refused', 'bad'];
    if (status.connection === 'starting') return ['Connecting…', 'idle'];
    if (status.connection === 'stopped') return ['Stopped', 'idle'];
    if (status.paused) return ['Paused', 'warn'];
    return [`Connected to ${hostOf(status.serverUrl)}`, 'ok'];
  })();
  ui.pill.textContent = pill[0];
  ui.pill.className = `pill pill-${pill[1]}`;
  ui.pauseToggle.hidden = status === null;
  ui.pauseToggle.textContent = status?.paused ? 'Resume printing' : 'Pause printing';
  renderBanners();
  renderJobs();
  renderUnmappedRoutes();
}

function renderBanners(): void {
  const banners: HTMLElement[] = [];
  const add = (kind: 'warn' | 'bad' | 'info', text: string) =>
    banners.push(el('p', { className: `banner banner-${kind}`, text }));
  const { settings, status } = state;
  if (settings && (!settings.serverUrl || !settings.hasToken)) {
    add(
      'info',
      'Enter the server address and the agent token below, then save, to start printing.',
    );
  }
  if (settings?.tokenWarning) add('warn', settings.tokenWarning);
  if (status?.connection === 'unauthorized') {
    add('bad', 'The server refused the token. Ask IT for a new agent token and enter it below.');
  } else if (status?.connection === 'unreachable') {
    const waiting =
      status.pendingReports > 0 ? ` ${status.pendingReports} reports wait to be sent.` : '';
    add('bad', `The server cannot be reached. Jobs already here still print.${waiting}`);
  }
  for (const entry of status?.notReady ?? []) {
    const routes = entry.routes.join(', ');
    add(
      'bad',
      `Printer "${entry.printer.name}" (${routes}) is not ready: ${describeNotReady(entry)}. Its jobs cannot print until it is.`,
    );
  }
  if (status?.paused)
    add('warn', 'Printing is paused: new jobs wait on the server until you resume.');
  if (status?.lastError && status.connection === 'connected') add('bad', status.lastError);
  ui.banners.replaceChildren(...banners);
}

// ---- jobs --------------------------------------------------------------------------------

async function runJobAction(run: () => Promise<ActionResult>): Promise<void> {
  const result = await settle(run);
  showMessage(ui.jobsMessage, result.message ?? '', result.ok);
}

function renderJobs(): void {
  const jobs = state.status?.recentJobs ?? [];
  ui.jobsBody.replaceChildren(
    ...jobs.map((job) =>
      renderJobRow(job, {
        retry: (jobId) => void runJobAction(() => bridge.retryJob(jobId)),
        reprint: (jobId) => void runJobAction(() => bridge.reprintJob(jobId)),
      }),
    ),
  );
  ui.jobsTable.hidden = jobs.length === 0;
  ui.jobsEmpty.hidden = jobs.length > 0;
  ui.jobsSummary.textContent = jobs.length > 0 ? jobsSummary(jobs) : '';
}

// ---- routes ------------------------------------------------------------------------------

function routesFromSettings(settings: SettingsView): RouteDraft[] {
  return Object.entries(settings.routes)
    .map(([name, printers]) => routeDraftOf(name, printers, settings.profiles?.[name]))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function markRoutesDirty(): void {
  state.routesDirty = true;
  showMessage(ui.routesMessage, 'Not saved yet.', null);
  renderRoutes();
}

function addRoute(name: string): boolean {
  if (!routeNamePattern.test(name)) {
    showMessage(ui.routesMessage, 'Route names use a-z, 0-9, ".", "_" or "-" (up to 64).', false);
    return false;
  }
  if (state.routes.some((route) => route.name === name)) {
    showMessage(ui.routesMessage, `"${name}" is already in the list.`, false);
    return false;
  }
  const fallback = state.printers.find((printer) => printer.is_default) ?? state.printers[0];
  state.routes.push({ name, printer: fallback?.name ?? '' });
  state.routes.sort((a, b) => a.name.localeCompare(b.name));
  markRoutesDirty();
  return true;
}

function renderRoutes(): void {
  const handlers = {
    changeProfile: (name: string, profile: PrinterProfile | undefined) => {
      const route = state.routes.find((candidate) => candidate.name === name);
      if (!route) return;
      if (profile) route.profile = profile;
      else delete route.profile;
      markRoutesDirty();
    },
    changePrinter: (name: string, printer: string) => {
      const route = state.routes.find((candidate) => candidate.name === name);
      if (route) route.printer = printer;
      markRoutesDirty();
    },
    changeBackups: (name: string, backups: string) => {
      const route = state.routes.find((candidate) => candidate.name === name);
      if (route) route.backups = backups;
      markRoutesDirty();
    },
    remove: (name: string) => {
      state.routes = state.routes.filter((route) => route.name !== name);
      markRoutesDirty();
    },
    testPrint: (name: string) =>
      void settle(() => bridge.testPrint(name)).then((result) =>
        showMessage(ui.routesMessage, result.message ?? '', result.ok),
      ),
  };
  ui.routesList.replaceChildren(
    ...(state.routes.length > 0
      ? state.routes.map((route) =>
          renderRouteRow(route, state.printers, handlers, !state.routesDirty),
        )
      : [el('p', { className: 'empty', text: 'No routes yet: add the first one below.' })]),
  );
  ui.saveRoutes.disabled = !state.routesDirty || state.routes.some((route) => route.printer === '');
  renderUnmappedRoutes();
}

/**
 * Jobs that came for a route nobody here prints: offer to add it in one click. Status pushes
 * redraw only this, so a printer list someone is choosing from does not close under them.
 */
function renderUnmappedRoutes(): void {
  const mapped = new Set(state.routes.map((route) => route.name));
  const unmapped = [...new Set((state.status?.recentJobs ?? []).map((job) => job.route))].filter(
    (name) => !mapped.has(name),
  );
  ui.unmapped.hidden = unmapped.length === 0;
  ui.unmapped.replaceChildren(
    ...(unmapped.length > 0
      ? [document.createTextNode('Jobs came for routes with no printer here:')]
      : []),
    ...unmapped.map((name) => {
      const button = el('button', {
        className: 'button button-small unmapped-add',
        text: `Add ${name}`,
        attrs: { type: 'button' },
      });
      button.addEventListener('click', () => addRoute(name));
      return button;
    }),
  );
}

async function refreshPrinters(): Promise<void> {
  try {
    state.printers = await bridge.listPrinters();
  } catch {
    showMessage(ui.routesMessage, 'Could not list the printers of this PC.', false);
  }
  renderRoutes();
}

// ---- server connection ---------------------------------------------------------------------

function renderSettings(settings: SettingsView): void {
  state.settings = settings;
  if (document.activeElement !== ui.serverUrl && !ui.serverUrl.value)
    ui.serverUrl.value = settings.serverUrl;
  ui.startAtLogin.checked = settings.startAtLogin;
  ui.token.placeholder = settings.hasToken
    ? '•••••••• (saved)'
    : 'The enrolment code (K7QF-M2XD) or the agent token';
  ui.tokenHint.textContent = settings.hasToken
    ? 'A token is saved. Leave this empty to keep it.'
    : 'Type the enrolment code IT gave you, or paste an agent token; what it gives is stored encrypted on this PC.';
  if (!state.routesDirty) state.routes = routesFromSettings(settings);
  renderBanners();
  renderRoutes();
}

function readServerForm(): { serverUrl: string; token?: string } | null {
  const serverUrl = ui.serverUrl.value.trim();
  let valid = false;
  try {
    const url = new URL(serverUrl);
    valid = url.protocol === 'http:' || url.protocol === 'https:';
  } catch {}
  ui.serverUrl.setAttribute('aria-invalid', String(!valid));
  if (!valid) {
    showMessage(
      ui.serverMessage,
      'Enter the server address, like https://shopdesk.example.com',
      false,
    );
    return null;
  }
  const token = ui.token.value.trim();
  if (!token && !state.settings?.hasToken) {
    showMessage(ui.serverMessage, 'Enter the agent token.', false);
    return null;
  }
  return token ? { serverUrl, token } : { serverUrl };
}

// ---- log ---------------------------------------------------------------------------------

function logLineElement(line: LogLine): HTMLElement {
  return el('span', {
    className: `log-${line.level}`,
    text: `${formatTime(line.at)}  ${line.level.toUpperCase().padEnd(5)} ${line.message}\n`,
  });
}

function appendLog(line: LogLine): void {
  const atBottom = ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 24;
  state.log.push(line);
  ui.log.append(logLineElement(line));
  while (state.log.length > logLimit) {
    state.log.shift();
    ui.log.firstChild?.remove();
  }
  if (atBottom) ui.log.scrollTop = ui.log.scrollHeight;
}

// ---- wiring ------------------------------------------------------------------------------

/** Bridge calls that reject (a refused message) show as a failed action, never as silence. */
async function settle(run: () => Promise<ActionResult>): Promise<ActionResult> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Electron wraps a rejection as "Error invoking remote method 'x': Error: …".
    return {
      ok: false,
      message: message.replace(/^Error invoking remote method '[^']*': \w*Error: /, ''),
    };
  }
}

function wire(): void {
  ui.pauseToggle.addEventListener('click', async () => {
    const result = await settle(() =>
      state.status?.paused ? bridge.resumeAgent() : bridge.pauseAgent(),
    );
    if (!result.ok) showMessage(ui.jobsMessage, result.message, false);
  });
  ui.refreshPrinters.addEventListener('click', () => void refreshPrinters());
  ui.addRouteForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (addRoute(ui.newRouteName.value.trim())) ui.newRouteName.value = '';
  });
  ui.saveRoutes.addEventListener('click', async () => {
    const routes = Object.fromEntries(
      state.routes.map((route) => [route.name, printerListOf(route)]),
    );
    const profiles = Object.fromEntries(
      state.routes.flatMap((route) => (route.profile ? [[route.name, route.profile]] : [])),
    );
    ui.saveRoutes.disabled = true;
    const result = await settle(() => bridge.saveSettings({ routes, profiles }));
    if (result.ok) state.routesDirty = false;
    showMessage(ui.routesMessage, result.ok ? 'Printers saved.' : result.message, result.ok);
    if (state.settings && result.ok) renderSettings({ ...state.settings, routes, profiles });
    else renderRoutes();
  });
  ui.testConnection.addEventListener('click', async () => {
    const request = readServerForm();
    if (!request) return;
    ui.testConnection.disabled = true;
    showMessage(ui.serverMessage, 'Testing…', null);
    const result = await settle(() => bridge.testConnection(request));
    ui.testConnection.disabled = false;
    showMessage(ui.serverMessage, result.message ?? '', result.ok);
  });
  ui.serverForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const request = readServerForm();
    if (!request) return;
    const result = await settle(() =>
      bridge.saveSettings({ ...request, startAtLogin: ui.startAtLogin.checked }),
    );
    if (result.ok) ui.token.value = '';
    showMessage(ui.serverMessage, result.ok ? 'Connection saved.' : result.message, result.ok);
  });
  ui.startAtLogin.addEventListener('change', () => {
    void settle(() => bridge.saveSettings({ startAtLogin: ui.startAtLogin.checked }));
  });
  ui.openLogs.addEventListener('click', async () => {
    const result = await settle(() => bridge.openLogs());
    if (!result.ok) showMessage(ui.jobsMessage, result.message, false);
  });

  bridge.onStatusChanged((status) => {
    state.status = status;
    renderStatus();
  });
  bridge.onSettingsChanged(renderSettings);
  bridge.onLogAppended(appendLog);
}

async function start(): Promise<void> {
  wire();
  const snapshot = await bridge.getSnapshot();
  state.status = snapshot.status;
  renderSettings(snapshot.settings);
  renderStatus();
  ui.log.replaceChildren();
  state.log = [];
  for (const line of snapshot.logTail) appendLog(line);
  ui.log.scrollTop = ui.log.scrollHeight;
  await refreshPrinters();
}

void start();
