import { afterAll, vi } from 'vitest';
import type { AgentStatus, RecentJob } from '../../agent/core/status.ts';
import { readyPrinter } from '../agent/helpers/fake-backend.ts';

/** A printer as the core reports it: idle and accepting jobs unless `overrides` say otherwise. */
export const printer = readyPrinter;

export function recentJob(overrides: Partial<RecentJob> & { id: number }): RecentJob {
  return {
    route: 'receipts',
    title: null,
    status: 'printed',
    printer: 'EPSON_TM_T20',
    error: null,
    at: '2026-11-22T10:00:00Z',
    ...overrides,
  };
}

export function agentStatus(overrides: Partial<AgentStatus> = {}): AgentStatus {
  return {
    connection: 'connected',
    serverUrl: 'https://shop.example.com',
    agentId: '6f1c2d1e-6a1b-4a55-9d0c-2a7c7c1e9b10',
    paused: false,
    printing: 0,
    pendingReports: 0,
    recentJobs: [],
    printers: [printer('EPSON_TM_T20', { is_default: true })],
    notReady: [],
    lastError: null,
    ...overrides,
  };
}

/**
 * For a file that mocks modules (`electron`, parts of the agent): the unit project shares its
 * worker's modules from one file to the next (vitest.config.ts), and Vitest forgets a file's
 * mocks at its end but keeps the modules loaded under them. So the modules are dropped before
 * this file loads its own under its mocks, and again at its end, so that the next file loads
 * the real ones. Call it at the top, before the file's `await import(...)`s.
 */
export function ownModulesUnderMocks(): void {
  vi.resetModules();
  afterAll(() => {
    vi.resetModules();
  });
}

/** electron-store on `conf`, its own base, where Electron's app paths are not to be had. */
export async function electronStoreStandIn() {
  const { default: Conf } = await import('conf');
  return class ElectronStoreStandIn extends Conf {
    constructor(options: { name: string; cwd: string; clearInvalidConfig?: boolean }) {
      super({
        cwd: options.cwd,
        configName: options.name,
        clearInvalidConfig: options.clearInvalidConfig,
      });
    }
  };
}
