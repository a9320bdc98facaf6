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
