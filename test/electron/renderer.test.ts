import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../agent/core/status.ts';
import { bundleAgentApp } from '../../agent/electron/bundle.ts';
import type { AppSnapshot } from '../../agent/electron/common/ipc.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { agentStatus, printer, recentJob } from './fixtures.ts';

/**
 * The real bundled window in Debian's Chromium. Electron cannot run here, so `window.shopdesk`
 * is a fake bridge injected before the page's script: it records every call and answers like
 * the main process, pushing status and settings changes back through the listeners. The
 * window is drawn with the components the console uses too (ui/); each flow is found by its
 * roles and labels, as a person with a screen reader finds it.
 */

const initialSnapshot: AppSnapshot = {
  settings: {
    serverUrl: '',
    routes: { a4: 'HP_LaserJet_Office' },
    profiles: {},
    startAtLogin: true,
    hasToken: false,
    tokenProtection: 'basic-text',
    tokenWarning:
      'This PC has no password keyring (GNOME Keyring or KWallet), so the token is stored with a fixed key.',
  },
  status: null,
  logTail: [
    { at: '2026-11-22T09:58:00Z', level: 'info', message: 'ShopDesk Print Agent 0.1.0 started' },
    {
      at: '2026-11-22T09:58:01Z',
      level: 'warn',
      message: 'Not set up: waiting for the server and token',
    },
  ],
  logFile: '/home/shop/.config/ShopDesk Print Agent/logs/agent.log',
};

const connectedStatus: AgentStatus = agentStatus({
  serverUrl: 'https://shop.example.com',
  printing: 1,
  recentJobs: [
    recentJob({
      id: 42,
      title: 'Order 1001 receipt',
      status: 'failed',
      printer: 'EPSON_TM_T20',
      error: 'Printer "EPSON_TM_T20" is offline (lp: exit 1)',
      at: '2026-11-22T10:02:00Z',
    }),
    recentJob({
      id: 41,
      title: 'Shipping label 77',
      route: 'labels',
      status: 'printing',
      printer: 'Zebra_GK420',
    }),
    recentJob({
      id: 40,
      title: 'Order 1000 receipt',
      status: 'printed',
      at: '2026-11-22T09:59:00Z',
    }),
  ],
});

interface FakeBridgeSetup {
  snapshot: AppSnapshot;
  connected: AgentStatus;
  printers: Array<{ name: string; is_default: boolean }>;
}

/** Runs in the page (serialised by Playwright): nothing from this file's scope is visible. */
function installFakeBridge(setup: FakeBridgeSetup): void {
  type Listener = (value: unknown) => void;
  const listeners: Record<string, Set<Listener>> = {
    status: new Set(),
    settings: new Set(),
    log: new Set(),
  };
  const calls: Array<[string, ...unknown[]]> = [];
  const state = structuredClone(setup);
  const emit = (kind: string, value: unknown) => {
    for (const listener of listeners[kind] ?? []) listener(value);
  };
  const on = (kind: string) => (listener: Listener) => {
    listeners[kind]?.add(listener);
    return () => listeners[kind]?.delete(listener);
  };
  const record = (name: string, ...args: unknown[]) => {
    calls.push([name, ...structuredClone(args)]);
  };
  const ok = (message?: string) => Promise.resolve({ ok: true, ...(message && { message }) });
  const recordOk = (name: string, args: unknown[], message?: string) => {
    record(name, ...args);
    return ok(message);
  };

  Object.assign(window, {
    __bridgeCalls: calls,
    __emitStatus: (status: unknown) => emit('status', status),
    shopdesk: {
      getSnapshot: async () => structuredClone(state.snapshot),
      saveSettings: async (patch: Record<string, unknown>) => {
        record('saveSettings', patch);
        const { token, ...rest } = patch;
        Object.assign(state.snapshot.settings, rest, token ? { hasToken: true } : {});
        emit('settings', structuredClone(state.snapshot.settings));
        if (token) setTimeout(() => emit('status', structuredClone(state.connected)), 10);
        return ok('Saved.');
      },
      testConnection: async (request: unknown) => {
        record('testConnection', request);
        return ok('Connected: the server accepted the token.');
      },
      listPrinters: async () => structuredClone(state.printers),
      retryJob: async (jobId: number) => {
        record('retryJob', jobId);
        const job = state.connected.recentJobs.find((candidate) => candidate.id === jobId);
        if (job) Object.assign(job, { status: 'queued', error: null });
        setTimeout(() => emit('status', structuredClone(state.connected)), 10);
        return ok(`Job #${jobId} is queued again.`);
      },
      reprintJob: async (jobId: number) => recordOk('reprintJob', [jobId]),
      testPrint: async (route: string) =>
        recordOk('testPrint', [route], `Test page sent to ${route}.`),
      pauseAgent: async () => recordOk('pauseAgent', []),
      resumeAgent: async () => recordOk('resumeAgent', []),
      openLogs: async () => recordOk('openLogs', []),
      onStatusChanged: on('status'),
      onSettingsChanged: on('settings'),
      onLogAppended: on('log'),
    },
  });
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

describe('settings window in Chromium with a fake bridge', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let page: Page;
  const consoleProblems: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-renderer-'));
    await bundleAgentApp(dir);
    const root = join(dir, 'renderer');
    // Served over http so that the page's CSP ('self') applies as it does in the app.
    server = createServer((request, response) => {
      const file = resolve(root, `.${new URL(request.url ?? '/', 'http://x').pathname}`);
      try {
        const body = readFileSync(file);
        response.writeHead(200, {
          'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
        });
        response.end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        consoleProblems.push(message.text());
    });
    page.on('pageerror', (error) => consoleProblems.push(error.message));
    await page.addInitScript(installFakeBridge, {
      snapshot: initialSnapshot,
      connected: connectedStatus,
      printers: [
        { name: 'EPSON_TM_T20', is_default: true },
        { name: 'Zebra_GK420', is_default: false },
      ],
    } satisfies FakeBridgeSetup);
    await page.goto(`${baseUrl}/index.html`);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  const calls = () =>
    page.evaluate(() => (window as unknown as { __bridgeCalls: unknown[] }).__bridgeCalls);

  const pill = () => page.getByRole('banner').getByRole('status');
  const route = (legend: string) => page.getByRole('group', { name: legend });

  it('first says it is not set up, warns about the keyring, and flags the missing printer', async () => {
    await pill().filter({ hasText: 'Not set up' }).waitFor();
    await page.getByText('Enter the server address and the agent token below').waitFor();
    await page.getByText('no password keyring').waitFor();
    await page.getByText('This PC does not list "HP_LaserJet_Office"').waitFor();
    await expect(page.getByRole('region', { name: 'Agent log' }).textContent()).resolves.toContain(
      'ShopDesk Print Agent 0.1.0 started',
    );
  });

  it('applies every part of the style sheet, inlined into the one styles.css', async () => {
    const applied = await page.evaluate(() => {
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
      return {
        base: style(':root').getPropertyValue('--accent').trim(),
        layout: style('.topbar').display,
        controls: style('.button').borderRadius,
        views: style('#log').backgroundColor,
      };
    });
    expect(applied).toEqual({
      base: '#1f6feb',
      layout: 'flex',
      controls: '6px',
      views: 'rgb(20, 24, 31)',
    });
  });

  it('tests and saves the server address and token', async () => {
    const token = page.getByLabel('Agent token');
    await page.getByLabel('Server address').fill('https://shop.example.com');
    await token.fill('sd_agent_7Hq2x9');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Connected: the server accepted the token.').waitFor();
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page.getByText('Connection saved.').waitFor();
    await expect(token.inputValue()).resolves.toBe('');
    await expect(token.getAttribute('placeholder')).resolves.toContain('saved');
    await pill().filter({ hasText: 'Connected to shop.example.com' }).waitFor();
    expect(await calls()).toEqual([
      ['testConnection', { serverUrl: 'https://shop.example.com', token: 'sd_agent_7Hq2x9' }],
      [
        'saveSettings',
        { serverUrl: 'https://shop.example.com', token: 'sd_agent_7Hq2x9', startAtLogin: true },
      ],
    ]);
  });

  it('maps routes to printers: fixes the missing one, adds one that jobs asked for', async () => {
    await route('Route 1: a4')
      .getByRole('combobox', { name: 'Printer', exact: true })
      .selectOption('EPSON_TM_T20');
    await page.getByText('Jobs came for routes with no printer here:').waitFor();
    await page.getByRole('button', { name: 'Add labels' }).click();
    const labels = route('Route 2: labels');
    await labels
      .getByRole('combobox', { name: 'Printer', exact: true })
      .selectOption('Zebra_GK420');
    // What the label printer understands: templates are rendered for it (docs/templates.md).
    await labels
      .getByRole('combobox', { name: 'Printer profile' })
      .selectOption({ label: '4×6 in label, ZPL 203 dpi' });
    // A backup for the labels: a comma list, blanks and the route's own printer dropped.
    await labels
      .getByRole('combobox', { name: 'Backup printers (optional)' })
      .fill(' Zebra_ZD421 , Zebra_GK420, ');
    await expect(
      labels.getByRole('button', { name: 'Test print on labels' }).isDisabled(),
    ).resolves.toBe(true);
    await page.getByRole('button', { name: 'Save printers' }).click();
    await page.getByText('Printers saved.').waitFor();
    expect((await calls()).at(-1)).toEqual([
      'saveSettings',
      {
        routes: { a4: 'EPSON_TM_T20', labels: 'Zebra_GK420,Zebra_ZD421' },
        profiles: { labels: { language: 'zpl', width_mm: 102, dpi: 203 } },
      },
    ]);
    await expect(page.getByText('does not list').count()).resolves.toBe(0);
    await labels.getByRole('button', { name: 'Test print on labels' }).click();
    await labels.getByText('Test page sent to labels.').waitFor();
    expect((await calls()).at(-1)).toEqual(['testPrint', 'labels']);
  });

  it('shows the failed job with its error, and retries it', async () => {
    const row = page.locator('tr[data-job-id="42"]');
    await expect(row.locator('.badge').textContent()).resolves.toBe('Failed');
    await expect(row.textContent()).resolves.toContain('Printer "EPSON_TM_T20" is offline');
    await page.getByText('3 recent · 1 printing · 1 need attention', { exact: true }).waitFor();
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/renderer.png', fullPage: true });

    await row.getByRole('button', { name: 'Retry job 42' }).click();
    await page.getByText('Job #42 is queued again.').waitFor();
    await row.locator('.badge', { hasText: 'Queued' }).waitFor();
    await expect(row.getByRole('button', { name: 'Retry job 42' }).count()).resolves.toBe(0);
    expect((await calls()).at(-1)).toEqual(['retryJob', 42]);
  });

  it('renders text from the server as text, never as markup', async () => {
    const title = '<img src=x onerror="document.title=1">Order';
    await page.evaluate((markup) => {
      const push = (window as unknown as { __emitStatus: (status: unknown) => void }).__emitStatus;
      push({
        connection: 'connected',
        serverUrl: 'https://shop.example.com',
        agentId: null,
        paused: false,
        printing: 0,
        pendingReports: 0,
        recentJobs: [
          {
            id: 50,
            route: 'a4',
            title: markup,
            status: 'failed',
            printer: null,
            error: markup,
            at: 'x',
          },
        ],
        printers: [],
        notReady: [],
        lastError: null,
      });
    }, title);
    const row = page.locator('tr[data-job-id="50"]');
    await expect(row.locator('.job-title').textContent()).resolves.toBe(title);
    await expect(page.locator('main img').count()).resolves.toBe(0);
  });

  it('says when the server cannot be reached or refuses the token, and pauses on request', async () => {
    const push = (status: AgentStatus) =>
      page.evaluate((next) => {
        (window as unknown as { __emitStatus: (status: unknown) => void }).__emitStatus(next);
      }, status);
    await push({ ...connectedStatus, connection: 'unreachable', pendingReports: 2 });
    await pill().filter({ hasText: 'Server unreachable' }).waitFor();
    await page
      .getByText('The server cannot be reached. Jobs already here still print. 2 reports wait')
      .waitFor();

    await push({ ...connectedStatus, connection: 'unauthorized' });
    await page.getByText('The server refused the token. Ask IT for a new agent token').waitFor();

    await push(connectedStatus);
    await page.getByRole('button', { name: 'Pause printing' }).click();
    await expect.poll(async () => (await calls()).at(-1)).toEqual(['pauseAgent']);
    await push({ ...connectedStatus, paused: true });
    await pill().filter({ hasText: 'Paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume printing' }).waitFor();
  });

  it('shows a route printer that is not ready as a banner, until it is ready again', async () => {
    const push = (status: AgentStatus) =>
      page.evaluate((next) => {
        (window as unknown as { __emitStatus: (status: unknown) => void }).__emitStatus(next);
      }, status);
    await push({
      ...connectedStatus,
      notReady: [
        {
          printer: printer('EPSON_TM_T20', {
            is_default: true,
            state: 'stopped',
            reasons: ['paused', 'media-empty-error'],
            message: '<b>Paper out</b>',
          }),
          listed: true,
          routes: ['receipts', 'kitchen'],
          since: '2026-11-22T10:03:00Z',
        },
      ],
    });
    const notices = page.getByRole('region', { name: 'What needs attention' });
    const banner = notices.getByText('Printer "EPSON_TM_T20"');
    await expect(banner.textContent()).resolves.toBe(
      'Printer "EPSON_TM_T20" (receipts, kitchen) is not ready: stopped, paused, out of paper: <b>Paper out</b>. Its jobs cannot print until it is.',
    );
    await expect(notices.locator('b').count()).resolves.toBe(0);
    await push(connectedStatus);
    await expect.poll(() => banner.count()).toBe(0);
  });

  it('keeps the printer pickers in place while status pushes arrive', async () => {
    const picker = await route('Route 1: a4')
      .getByRole('combobox', { name: 'Printer', exact: true })
      .elementHandle();
    await page.evaluate((next) => {
      (window as unknown as { __emitStatus: (status: unknown) => void }).__emitStatus(next);
    }, connectedStatus);
    await expect(picker?.evaluate((element) => element.isConnected)).resolves.toBe(true);
  });

  it('refuses to save two routes of one name, which would keep one printer list of the two', async () => {
    const form = page.getByRole('form', { name: 'Printers of this PC' });
    await form.getByRole('button', { name: 'Add a route' }).click();
    await route('Route 3').getByLabel('Route name').fill('a4');
    const before = (await calls()).length;
    await form.getByRole('button', { name: 'Save printers' }).click();
    await form
      .getByText('Route "a4" is in the list twice: give each route its own name.')
      .waitFor();
    expect((await calls()).length).toBe(before);
    await form.getByRole('button', { name: 'Remove route 3' }).click();
  });

  it('has no serious or critical accessibility problems (axe), status and editor shown', async () => {
    await route('Route 1: a4').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(consoleProblems).toEqual([]);
  });
});
