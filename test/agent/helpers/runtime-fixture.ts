import { afterEach, beforeEach } from 'vitest';
import type { AgentRuntime } from '../../../agent/core/runtime/agent-runtime.ts';
import { type AgentTestServer, startAgentTestServer } from './agent-test-server.ts';
import { makeStateDir } from './state-dir.ts';

type Folder = Awaited<ReturnType<typeof makeStateDir>>;

/** What each test of an agent runtime file gets fresh: set before it, cleaned after it. */
export interface RuntimeFixture {
  /** The real server, in this process. */
  server: AgentTestServer;
  /** The agent's state directory. */
  state: Folder;
  /** A folder a `folder:` printer writes into. */
  output: Folder;
  /** The runtimes the test started: stopped after it, before the server closes. */
  runtimes: AgentRuntime[];
}

/** Registers the hooks that give each test of the file a fresh {@link RuntimeFixture}. */
export function runtimeFixtureOfEach(): RuntimeFixture {
  const fixture = { runtimes: [] as AgentRuntime[] } as RuntimeFixture;
  beforeEach(async () => {
    fixture.server = await startAgentTestServer();
    fixture.state = await makeStateDir();
    fixture.output = await makeStateDir();
  });
  afterEach(async () => {
    for (const runtime of fixture.runtimes.splice(0)) await runtime.stop();
    await fixture.server.close();
    await fixture.state.cleanup();
    await fixture.output.cleanup();
  });
  return fixture;
}
