import type { AgentRuntime } from '../../../agent/core/runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from '../../../agent/core/runtime/runtime-context.ts';
import { makeStateDir } from '../../agent/helpers/state-dir.ts';
import { deleteQueue, startTestCups } from '../../helpers/cups.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../../helpers/real-agent-server.ts';
import { testAgentRuntime } from './agent-runtime.ts';

/**
 * Real CUPS with the queues `addQueues` makes, then a real-agent test server whose long polls
 * wait 5 s (a test's pace).
 */
export async function startCupsAndServer(
  addQueues: () => Promise<unknown>,
): Promise<RealAgentTestServer> {
  await startTestCups();
  await addQueues();
  return startRealAgentTestServer({ longPollWaitSeconds: 5 });
}

/** Closes `server` (if it started), then deletes `queues`. */
export async function closeCupsAndServer(
  server: RealAgentTestServer | undefined,
  queues: string[],
): Promise<void> {
  await server?.close();
  for (const queue of queues) await deleteQueue(queue);
}

/**
 * The real agent runtime for `server` on `routes`, started with a state directory of its own;
 * `stop` stops it and removes the directory.
 */
export async function startAgentRuntime(
  server: RealAgentTestServer,
  routes: AgentRuntimeOptions['routes'],
  beforeStart: (runtime: AgentRuntime) => void = () => {},
): Promise<{ runtime: AgentRuntime; stop: () => Promise<void> }> {
  const state = await makeStateDir();
  const runtime = testAgentRuntime(server, state.dir, routes);
  beforeStart(runtime);
  await runtime.start();
  return {
    runtime,
    async stop() {
      await runtime.stop();
      await state.cleanup();
    },
  };
}
