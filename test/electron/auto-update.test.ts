import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { feedUrlOf, startAutoUpdate, type Updater } from '../../agent/electron/main/auto-update.ts';
import {
  parseLaunchArguments,
  readProvisioningFile,
} from '../../agent/electron/main/launch-options.ts';

/**
 * The tray's updates (agent/electron/main/auto-update.ts) with electron-updater's AppUpdater
 * stood in for (it needs Electron): where it reads the feed, as whom, and that a downloaded
 * build installs only while no job is in flight. The feed itself, as electron-updater's own
 * provider reads it, is tested against the server in test/releases/update-feed.test.ts.
 */
function fakeUpdater() {
  const events = new EventEmitter();
  const autoUpdater = {
    autoDownload: false,
    autoInstallOnAppQuit: true,
    requestHeaders: null as Record<string, string> | null,
    setFeedURL: vi.fn(),
    checkForUpdates: vi.fn(async () => null),
    quitAndInstall: vi.fn(),
    on: (event: string, listener: Parameters<EventEmitter['on']>[1]) => events.on(event, listener),
  };
  return {
    autoUpdater,
    events,
    loadUpdater: vi.fn(async () => ({ autoUpdater: autoUpdater as unknown as Updater })),
  };
}

const feed = () => ({
  serverUrl: 'https://shopdesk.example.com',
  token: 'sd_agent',
  agentId: '00000000-0000-4000-8000-000000000001',
  channel: 'stable',
});

describe('auto-update', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is off unless IT turned it on, and never runs from a development build', async () => {
    const { loadUpdater } = fakeUpdater();
    const common = { feed, jobsInFlight: () => 0, log: vi.fn(), loadUpdater };
    await expect(
      startAutoUpdate({ ...common, enabled: false, isPackaged: true }),
    ).resolves.toBeNull();
    await expect(
      startAutoUpdate({ ...common, enabled: true, isPackaged: false }),
    ).resolves.toBeNull();
    expect(loadUpdater).not.toHaveBeenCalled();
  });

  it("reads the server's feed as this agent at start and every six hours", async () => {
    const { autoUpdater, loadUpdater } = fakeUpdater();
    const stop = await startAutoUpdate({
      enabled: true,
      isPackaged: true,
      feed,
      jobsInFlight: () => 0,
      log: vi.fn(),
      loadUpdater,
    });
    expect(autoUpdater.setFeedURL).toHaveBeenCalledWith({
      provider: 'generic',
      url: 'https://shopdesk.example.com/api/v1/printing/updates/stable/',
    });
    expect(autoUpdater.requestHeaders).toEqual({
      authorization: 'Bearer sd_agent',
      'x-agent-id': '00000000-0000-4000-8000-000000000001',
    });
    expect(autoUpdater.autoDownload).toBe(true);
    expect(autoUpdater.autoInstallOnAppQuit).toBe(false);
    expect(autoUpdater.checkForUpdates).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(6 * 60 * 60 * 1000);
    expect(autoUpdater.checkForUpdates).toHaveBeenCalledTimes(2);
    stop?.();
  });

  it('delays the install while a job is in flight, and installs once none is', async () => {
    const { autoUpdater, events, loadUpdater } = fakeUpdater();
    let printing = 1;
    const log = vi.fn();
    const stop = await startAutoUpdate({
      enabled: true,
      isPackaged: true,
      feed,
      jobsInFlight: () => printing,
      log,
      loadUpdater,
    });
    events.emit('update-downloaded', { version: '1.3.0' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(autoUpdater.quitAndInstall).not.toHaveBeenCalled();
    expect(log).toHaveBeenCalledWith(
      'info',
      'Version 1.3.0 is ready; it installs once the job in hand is done.',
    );
    printing = 0;
    await vi.advanceTimersByTimeAsync(5000);
    expect(autoUpdater.quitAndInstall).toHaveBeenCalledTimes(1);
    expect(autoUpdater.quitAndInstall).toHaveBeenCalledWith(true, true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(autoUpdater.quitAndInstall).toHaveBeenCalledTimes(1);
    stop?.();
  });

  it('installs at once when nothing is printing', async () => {
    const { autoUpdater, events, loadUpdater } = fakeUpdater();
    await startAutoUpdate({
      enabled: true,
      isPackaged: true,
      feed,
      jobsInFlight: () => 0,
      log: vi.fn(),
      loadUpdater,
    });
    events.emit('update-downloaded', { version: '1.3.0' });
    expect(autoUpdater.quitAndInstall).toHaveBeenCalledTimes(1);
  });

  it('builds the feed URL from the server address, with or without /api/v1', () => {
    expect(feedUrlOf({ serverUrl: 'https://a.example/api/v1/', channel: 'beta' })).toBe(
      'https://a.example/api/v1/printing/updates/beta/',
    );
  });

  it('is turned on by --auto-update or "autoUpdate": true in agent.json, never by default', () => {
    expect(parseLaunchArguments([], '/etc/x.json').flags.autoUpdate).toBeUndefined();
    expect(parseLaunchArguments(['--auto-update'], '/etc/x.json').flags.autoUpdate).toBe(true);
    expect(readProvisioningFile('/etc/x.json', () => '{"autoUpdate":true}').provisioning).toEqual({
      autoUpdate: true,
    });
  });
});
