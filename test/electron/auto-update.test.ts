import { describe, expect, it, vi } from 'vitest';
import { startAutoUpdate } from '../../agent/electron/main/auto-update.ts';
import {
  parseLaunchArguments,
  readProvisioningFile,
} from '../../agent/electron/main/launch-options.ts';

function fakeUpdater() {
  const autoUpdater = { autoDownload: true, checkForUpdatesAndNotify: vi.fn(async () => null) };
  return { autoUpdater, loadUpdater: vi.fn(async () => ({ autoUpdater })) };
}

describe('auto-update', () => {
  it('is off by default: nothing is loaded or checked', async () => {
    const { loadUpdater } = fakeUpdater();
    const log = vi.fn();
    await expect(
      startAutoUpdate({ enabled: false, isPackaged: true, log, loadUpdater }),
    ).resolves.toBeNull();
    expect(loadUpdater).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });

  it('never runs from a development build', async () => {
    const { loadUpdater } = fakeUpdater();
    await startAutoUpdate({ enabled: true, isPackaged: false, log: vi.fn(), loadUpdater });
    expect(loadUpdater).not.toHaveBeenCalled();
  });

  it('checks at once when IT turned it on, and can be stopped', async () => {
    const { autoUpdater, loadUpdater } = fakeUpdater();
    const stop = await startAutoUpdate({
      enabled: true,
      isPackaged: true,
      log: vi.fn(),
      loadUpdater,
    });
    expect(autoUpdater.checkForUpdatesAndNotify).toHaveBeenCalledTimes(1);
    expect(stop).toBeTypeOf('function');
    stop?.();
  });

  it('says so when the build has no electron-updater', async () => {
    const log = vi.fn();
    const loadUpdater = async () => {
      throw new Error("Cannot find package 'electron-updater'");
    };
    await expect(
      startAutoUpdate({ enabled: true, isPackaged: true, log, loadUpdater }),
    ).resolves.toBeNull();
    expect(log).toHaveBeenCalledWith('warn', expect.stringMatching(/no electron-updater/));
  });

  it('is turned on by --auto-update or "autoUpdate": true in agent.json, never by default', () => {
    expect(parseLaunchArguments([], '/etc/x.json').flags.autoUpdate).toBeUndefined();
    expect(parseLaunchArguments(['--auto-update'], '/etc/x.json').flags.autoUpdate).toBe(true);
    expect(readProvisioningFile('/etc/x.json', () => '{"autoUpdate":true}').provisioning).toEqual({
      autoUpdate: true,
    });
  });
});
