// The one place the Electron shell reaches into the agent core: adapt here if its factory
// changes. The core runs in this (main) process; the tray and window only see AgentControl.
import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import { createAgentRuntime } from '../../core/index.ts';
import type { AgentControl } from '../../core/status.ts';

export interface AgentHostOptions {
  serverUrl: string;
  token: string;
  stateDir: string;
  routes: Record<string, string>;
  profiles?: Record<string, PrinterProfile>;
}

export type CreateAgentControl = (options: AgentHostOptions) => AgentControl;

export const createAgentControl: CreateAgentControl = (options) =>
  createAgentRuntime({
    serverUrl: options.serverUrl,
    token: options.token,
    stateDir: options.stateDir,
    routes: options.routes,
    ...(options.profiles && { profiles: options.profiles }),
  });
