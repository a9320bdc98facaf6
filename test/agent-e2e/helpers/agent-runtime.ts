import { AgentRuntime } from '../../../agent/core/runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from '../../../agent/core/runtime/runtime-context.ts';
import type { RealAgentTestServer } from '../../helpers/real-agent-server.ts';

/**
 * The real agent runtime for `server`'s agent token, not started yet: it retries a call
 * once and reconnects within a fraction of a second, the pace of a test rather than of a
 * shop. `more` adds or overrides options (a printer check interval, a back-end).
 */
export function testAgentRuntime(
  server: RealAgentTestServer,
  stateDir: string,
  routes: AgentRuntimeOptions['routes'],
  more: Partial<AgentRuntimeOptions> = {},
): AgentRuntime {
  return new AgentRuntime({
    serverUrl: server.url,
    token: server.token,
    stateDir,
    routes,
    client: { attempts: 1, backoff: { baseMs: 20, maxMs: 100 } },
    reconnect: { baseMs: 50, maxMs: 300 },
    ...more,
  });
}
