import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { unknownPrinter } from '../../agent/core/printers/printer-status.ts';
import type { AgentControl, AgentStatus, LogLine } from '../../agent/core/status.ts';
import { createAgentActions } from '../../agent/electron/main/agent-actions.ts';
import type { AgentHostOptions } from '../../agent/electron/main/agent-host.ts';
import { AgentSupervisor } from '../../agent/electron/main/agent-supervisor.ts';
import { AgentLogFile, redactSecrets } from '../../agent/electron/main/log-file.ts';
import { agentStatus, printer, recentJob } from './fixtures.ts';

// The agent core is built elsewhere: these tests drive the shell against a fake AgentControl.
const token = 'sd_agent_0f9e8d7c6b5a';

class FakeAgent implements AgentControl {
  readonly options: AgentHostOptions;
  current: AgentStatus;
  started = false;
  stopped = false;
  readonly calls: string[] = [];
  readonly #statusListeners = new Set<(status: AgentStatus) => void>();
  readonly #logListeners = new Set<(line: LogLine) => void>();
  failNext: string | null = null;

  constructor(options: AgentHostOptions) {
    this.options = options;
    this.current = agentStatus({ connection: 'starting', serverUrl: options.serverUrl });
  }
  async start() {
    this.started = true;
    this.emit({ ...this.current, connection: 'connected' });
  }
  async stop() {
    this.stopped = true;
  }
  pause() {
    this.calls.push('pause');
    this.emit({ ...this.current, paused: true });
  }
  resume() {
    this.calls.push('resume');
    this.emit({ ...this.current, paused: false });
  }
  status() {
    return this.current;
  }
  async retry(jobId: number) {
    this.#maybeFail();
    this.calls.push(`retry ${jobId}`);
  }
  async reprint(jobId: number) {
    this.#maybeFail();
    this.calls.push(`reprint ${jobId}`);
  }
  async testPrint(route: string) {
    this.calls.push(`test ${route}`);
  }
  async listPrinters() {
    return [printer('Zebra_GK420')];
  }
  onStatus(listener: (status: AgentStatus) => void) {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }
  onLog(listener: (line: LogLine) => void) {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }
  emit(status: AgentStatus) {
    this.current = status;
    for (const listener of this.#statusListeners) listener(status);
  }
  log(message: string) {
    for (const listener of this.#logListeners)
      listener({ at: '2026-11-22T10:00:00Z', level: 'info', message });
  }
  #maybeFail() {
    if (this.failNext) {
      const message = this.failNext;
      this.failNext = null;
      throw new Error(message);
    }
  }
}

describe('AgentSupervisor and the window actions', () => {
  let dir: string;
  let agents: FakeAgent[];
  let supervisor: AgentSupervisor;
  let logFile: AgentLogFile;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-supervisor-'));
    agents = [];
    logFile = new AgentLogFile(join(dir, 'logs', 'agent.log'));
    supervisor = new AgentSupervisor({
      createControl: (options) => {
        const agent = new FakeAgent(options);
        agents.push(agent);
        return agent;
      },
      stateDir: join(dir, 'state'),
      logFile,
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = { serverUrl: 'https://shop.example.com', token, routes: { receipts: 'EPSON' } };

  it('starts the core with the settings and passes its status on', async () => {
    const statuses: Array<AgentStatus | null> = [];
    supervisor.onStatus((status) => statuses.push(status));
    await supervisor.configure(config);
    expect(agents).toHaveLength(1);
    expect(agents[0]?.options).toEqual({ ...config, stateDir: join(dir, 'state') });
    expect(agents[0]?.started).toBe(true);
    expect(statuses.map((status) => status?.connection)).toEqual(['starting', 'connected']);
    expect(supervisor.status()?.connection).toBe('connected');
  });

  it('stops the old core before it starts a new one, and never runs two', async () => {
    await Promise.all([
      supervisor.configure(config),
      supervisor.configure({ ...config, routes: { labels: 'Zebra' } }),
    ]);
    expect(agents).toHaveLength(2);
    expect(agents[0]?.stopped).toBe(true);
    expect(agents[1]?.stopped).toBe(false);
    expect(supervisor.control).toBe(agents[1]);
    // The stopped core's events no longer reach the tray.
    agents[0]?.emit(agentStatus({ connection: 'unreachable' }));
    expect(supervisor.status()?.connection).toBe('connected');
    await supervisor.configure(null);
    expect(agents[1]?.stopped).toBe(true);
    expect(supervisor.status()).toBeNull();
  });

  it('takes the token out of every log line, in the tail and in the file', async () => {
    await supervisor.configure(config);
    agents[0]?.log(`GET /api/v1/printing/config with ${token} failed`);
    agents[0]?.log('request headers: {"authorization":"Bearer abc.def-123"}');
    const tail = supervisor.logTail().map((line) => line.message);
    expect(tail).toContain('GET /api/v1/printing/config with [token] failed');
    expect(tail.join('\n')).not.toContain('abc.def-123');
    const onDisk = readFileSync(logFile.path, 'utf8');
    expect(onDisk).toContain('[token]');
    expect(onDisk).not.toContain(token);
  });

  it('redactSecrets leaves ordinary text alone', () => {
    expect(redactSecrets('Printed job #12 on EPSON', [token])).toBe('Printed job #12 on EPSON');
  });

  function actions(overrides: Partial<Parameters<typeof createAgentActions>[0]> = {}) {
    const saved: object[] = [];
    const settings = {
      apply: (patch: object) => saved.push(patch),
      view: () => ({
        serverUrl: config.serverUrl,
        routes: config.routes,
        profiles: {},
        startAtLogin: true,
        hasToken: true,
        tokenProtection: 'os-encryption' as const,
        tokenWarning: null,
      }),
      token: () => token,
      connectionConfig: () => config,
      routes: () => ({}),
    };
    const handlers = createAgentActions({
      settings,
      supervisor,
      logFilePath: logFile.path,
      listSystemPrinters: async () => [unknownPrinter('OS_Printer')],
      openPath: async () => '',
      applyStartAtLogin: vi.fn(),
      onSettingsChanged: vi.fn(),
      ...overrides,
    });
    return { handlers, saved };
  }

  it('retries and reprints through the core, and says when that fails', async () => {
    const { handlers } = actions();
    await supervisor.configure(config);
    await expect(handlers['jobs:retry'](7)).resolves.toEqual({
      ok: true,
      message: 'Job #7 is queued again.',
    });
    await expect(handlers['jobs:reprint'](6)).resolves.toMatchObject({ ok: true });
    agents[0]!.failNext = 'HTTP 409: job 5 is not failed';
    await expect(handlers['jobs:retry'](5)).resolves.toEqual({
      ok: false,
      message: 'Retry of job #5 failed: HTTP 409: job 5 is not failed',
    });
    expect(agents[0]?.calls).toEqual(['retry 7', 'reprint 6']);
  });

  it('refuses job actions before the agent runs, in words for shop staff', async () => {
    const { handlers } = actions();
    await expect(handlers['jobs:retry'](1)).resolves.toMatchObject({
      ok: false,
      message: /not running/,
    });
  });

  it('lists printers from the core when it runs, from the OS before', async () => {
    const { handlers } = actions();
    await expect(handlers['printers:list']()).resolves.toEqual([unknownPrinter('OS_Printer')]);
    await supervisor.configure(config);
    await expect(handlers['printers:list']()).resolves.toEqual([printer('Zebra_GK420')]);
  });

  it('restarts the core when routes change, not when only start-at-login does', async () => {
    const applyStartAtLogin = vi.fn();
    const { handlers, saved } = actions({ applyStartAtLogin });
    await supervisor.configure(config);
    await handlers['settings:save']({ startAtLogin: false });
    expect(agents).toHaveLength(1);
    expect(applyStartAtLogin).toHaveBeenCalledWith(false);
    await handlers['settings:save']({ routes: { labels: 'Zebra' } });
    expect(agents).toHaveLength(2);
    expect(saved).toEqual([{ startAtLogin: false }, { routes: { labels: 'Zebra' } }]);
  });

  it('logs that the token changed without logging the token', async () => {
    const { handlers } = actions();
    await handlers['settings:save']({ token: 'sd_agent_new_token_value' });
    const tail = supervisor
      .logTail()
      .map((line) => line.message)
      .join('\n');
    expect(tail).toContain('Settings saved (token)');
    expect(tail).not.toContain('sd_agent_new_token_value');
  });

  it('tests the connection with the saved token when none is typed', async () => {
    const seen: Array<[string, string | null]> = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      seen.push([url, new Headers(init.headers).get('authorization')]);
      return new Response('{"data":{}}', { status: 200 });
    }) as typeof fetch;
    const { handlers } = actions({ fetchImpl });
    await expect(
      handlers['settings:test-connection']({ serverUrl: 'https://shop.example.com/api/v1/' }),
    ).resolves.toEqual({ ok: true, message: 'Connected: the server accepted the token.' });
    expect(seen).toEqual([['https://shop.example.com/api/v1/me', `Bearer ${token}`]]);
  });

  it.each([
    [401, /refused the token/],
    [404, /not a ShopDesk server/],
    [503, /answered 503/],
  ])('explains a %i from the connection test', async (status, message) => {
    const fetchImpl = (async () => new Response('{}', { status })) as unknown as typeof fetch;
    const { handlers } = actions({ fetchImpl });
    await expect(
      handlers['settings:test-connection']({ serverUrl: 'https://shop.example.com', token: 'x_y' }),
    ).resolves.toMatchObject({ ok: false, message });
  });

  it('explains an unreachable server', async () => {
    const fetchImpl = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) as unknown as typeof fetch;
    const { handlers } = actions({ fetchImpl });
    await expect(
      handlers['settings:test-connection']({ serverUrl: 'https://shop.example.com', token: 'x_y' }),
    ).resolves.toEqual({
      ok: false,
      message: 'Cannot reach the server (ECONNREFUSED). Check the address.',
    });
  });

  it('pauses and resumes, and the snapshot shows the recent jobs', async () => {
    const { handlers } = actions();
    await supervisor.configure(config);
    agents[0]?.emit(
      agentStatus({ recentJobs: [recentJob({ id: 3, status: 'failed', error: 'Out of paper' })] }),
    );
    await handlers['agent:pause']();
    expect(supervisor.status()?.paused).toBe(true);
    await handlers['agent:resume']();
    const snapshot = await handlers['app:get-snapshot']();
    expect(snapshot.status?.paused).toBe(false);
    expect(snapshot.status?.recentJobs[0]).toMatchObject({ id: 3, error: 'Out of paper' });
    expect(snapshot.logFile).toBe(logFile.path);
  });

  it("takes an enrolment code in the token field: trades it, keeps the token it got, maps the code's routes on the default printer", async () => {
    const redeemEnrollment = vi.fn(async () => ({
      token: 'sd_enrolled',
      token_id: 7,
      agent_id: '00000000-0000-4000-8000-000000000001',
      company: { id: 1, name: 'Shop' },
      routes: ['receipts'],
    }));
    const { handlers, saved } = actions({
      redeemEnrollment,
      defaultPrinter: async () => 'EPSON_TM_T20',
    });
    const result = await handlers['settings:save']({ token: 'k7qf-m2xd' });
    expect(redeemEnrollment).toHaveBeenCalledWith(config.serverUrl, 'k7qf-m2xd');
    expect(result).toEqual({
      ok: true,
      message:
        'Enrolled with Shop as agent 00000000-0000-4000-8000-000000000001. receipts print on EPSON_TM_T20; change it under Printers.',
    });
    expect(saved).toEqual([{ token: 'sd_enrolled', routes: { receipts: 'EPSON_TM_T20' } }]);
  });

  it('says why an enrolment code was refused, and saves nothing', async () => {
    const { handlers, saved } = actions({
      redeemEnrollment: async () => {
        throw new Error(
          'This enrolment code has been used up (1 of 1 agent enrolled); ask IT for a new code.',
        );
      },
    });
    await expect(handlers['settings:save']({ token: 'K7QF-M2XD' })).resolves.toEqual({
      ok: false,
      message:
        'Enrolment failed: This enrolment code has been used up (1 of 1 agent enrolled); ask IT for a new code.',
    });
    expect(saved).toEqual([]);
  });
});
