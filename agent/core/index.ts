import type { AgentControl, LogLine } from './status.ts';

/*
 * PLACEHOLDER from the electron-app branch, so that branch type-checks and bundles before the
 * agent core lands. At merge, the core's own agent/core/index.ts replaces this file whole
 * (take theirs); agent/electron/main/agent-host.ts is the only importer.
 */

export interface AgentRuntimeOptions {
  serverUrl: string;
  token: string;
  stateDir: string;
  /** Route name → OS printer name (or `folder:DIR`). */
  routes: Record<string, string>;
  log?: (line: LogLine) => void;
}

export function createAgentRuntime(_options: AgentRuntimeOptions): AgentControl {
  throw new Error('The agent core is not merged into this build yet.');
}
