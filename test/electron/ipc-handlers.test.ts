import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ownModulesUnderMocks } from './fixtures.ts';

// Electron cannot run here: ipcMain is a stand-in that keeps the registered handlers.
const registered = vi.hoisted(
  () => new Map<string, (event: unknown, ...args: unknown[]) => unknown>(),
);
vi.mock('electron', () => {
  const ipcMain = {
    handle: (channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) => {
      registered.set(channel, handler);
    },
    removeHandler: (channel: string) => registered.delete(channel),
  };
  return { ipcMain, default: { ipcMain } };
});

ownModulesUnderMocks();
const { eventChannels, ipcChannels } = await import('../../agent/electron/common/ipc.ts');
const { invokeArgumentSchemas } = await import('../../agent/electron/common/ipc-schemas.ts');
const { registerIpcHandlers } = await import('../../agent/electron/main/ipc-handlers.ts');
type InvokeHandlers = import('../../agent/electron/main/ipc-handlers.ts').InvokeHandlers;

const ownWindowId = 7;
const ownPage = 'shopdesk-app://window/index.html';

function eventFrom(options: { id?: number; url?: string | null; childFrame?: boolean } = {}) {
  const url = options.url === undefined ? ownPage : options.url;
  return {
    sender: { id: options.id ?? ownWindowId },
    senderFrame:
      url === null ? null : { url, parent: options.childFrame ? { url: ownPage } : null },
  };
}

function handlersSpy() {
  const ok = { ok: true } as const;
  return {
    'app:get-snapshot': vi.fn(),
    'settings:save': vi.fn(async () => ok),
    'settings:test-connection': vi.fn(async () => ok),
    'printers:list': vi.fn(async () => []),
    'jobs:retry': vi.fn(async () => ok),
    'jobs:reprint': vi.fn(async () => ok),
    'jobs:test-print': vi.fn(async () => ok),
    'agent:pause': vi.fn(async () => ok),
    'agent:resume': vi.fn(async () => ok),
    'logs:open': vi.fn(async () => ok),
  } satisfies Record<keyof InvokeHandlers, unknown>;
}

async function invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
  const handler = registered.get(channel);
  if (!handler) throw new Error(`${channel} is not registered`);
  return handler(event, ...args);
}

describe('IPC handlers (electron mocked)', () => {
  let handlers: ReturnType<typeof handlersSpy>;
  let refusals: Array<[string, string]>;
  let unregister: () => void;

  beforeEach(() => {
    registered.clear();
    handlers = handlersSpy();
    refusals = [];
    unregister = registerIpcHandlers(
      handlers as unknown as InvokeHandlers,
      () => new Set([ownWindowId]),
      (channel, reason) => refusals.push([channel, reason]),
    );
  });

  it('registers every invoke channel and no event channel', () => {
    expect([...registered.keys()].sort()).toEqual(Object.keys(invokeArgumentSchemas).sort());
    for (const channel of eventChannels) expect(registered.has(channel)).toBe(false);
    unregister();
    expect(registered.size).toBe(0);
  });

  it('passes a valid message from its own window to the handler', async () => {
    await expect(invoke(ipcChannels.retryJob, eventFrom(), 42)).resolves.toEqual({ ok: true });
    expect(handlers['jobs:retry']).toHaveBeenCalledWith(42);
    const patch = { serverUrl: 'https://shop.example.com', routes: { receipts: 'EPSON_TM_T20' } };
    await invoke(ipcChannels.saveSettings, eventFrom(), patch);
    expect(handlers['settings:save']).toHaveBeenCalledWith(patch);
    expect(refusals).toEqual([]);
  });

  describe.each([
    ['another web contents', { id: 99 }],
    ['a page that is not ours', { url: 'file:///tmp/evil.html' }],
    ['a look-alike scheme', { url: 'https://window/index.html' }],
    ['a child frame of our page', { childFrame: true }],
    ['a sender without a frame', { url: null }],
  ])('refuses a message from %s', (_name, sender) => {
    it('and never calls the handler', async () => {
      await expect(invoke(ipcChannels.retryJob, eventFrom(sender), 42)).rejects.toThrow(
        /not sent by the agent window/,
      );
      expect(handlers['jobs:retry']).not.toHaveBeenCalled();
      expect(refusals[0]?.[1]).toMatch(/foreign sender/);
    });
  });

  describe.each([
    ['a job id as text', ipcChannels.retryJob, ['42']],
    ['a job id of 0', ipcChannels.reprintJob, [0]],
    ['a fractional job id', ipcChannels.retryJob, [1.5]],
    ['an extra argument', ipcChannels.retryJob, [1, 2]],
    ['a missing argument', ipcChannels.testPrint, []],
    ['an argument where none is taken', ipcChannels.pauseAgent, ['now']],
    ['a route name with capitals and spaces', ipcChannels.testPrint, ['Front Desk']],
    [
      'an unknown settings field',
      ipcChannels.saveSettings,
      [{ serverUrl: 'https://a.example', admin: true }],
    ],
    ['a file: server address', ipcChannels.saveSettings, [{ serverUrl: 'file:///etc/passwd' }]],
    [
      'credentials in the server address',
      ipcChannels.testConnection,
      [{ serverUrl: 'https://u:p@a.example' }],
    ],
    ['a token with a line break', ipcChannels.saveSettings, [{ token: 'abc\nSet-Cookie: x' }]],
    [
      'a bad route name in the mapping',
      ipcChannels.saveSettings,
      [{ routes: { 'Bad Route': 'P1' } }],
    ],
    ['an empty printer name', ipcChannels.saveSettings, [{ routes: { receipts: '  ' } }]],
    [
      'a prototype key',
      ipcChannels.saveSettings,
      [JSON.parse('{"__proto__": {"polluted": true}}')],
    ],
  ])('refuses %s', (_name, channel, args) => {
    it('and never calls the handler', async () => {
      await expect(invoke(channel, eventFrom(), ...args)).rejects.toThrow(/Refused/);
      for (const handler of Object.values(handlers)) expect(handler).not.toHaveBeenCalled();
      expect(refusals).toHaveLength(1);
      expect(refusals[0]?.[1]).toMatch(/invalid arguments/);
    });
  });

  it('does not put the rejected token in the refusal it logs', async () => {
    await expect(
      invoke(ipcChannels.saveSettings, eventFrom(), { token: 'sd_live secret-value' }),
    ).rejects.toThrow();
    expect(JSON.stringify(refusals)).not.toContain('secret-value');
  });
});
