import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../../helpers/real-agent-server.ts';

/** What the tests of `shopdesk agent` processes against the real server share. */
export interface AgentProcessFixture {
  server: RealAgentTestServer;
  /** A folder of the file's own for state directories and folder routes, removed after. */
  dir: string;
  /** Run after each test, last pushed first (killing the test's processes, say). */
  cleanups: Array<() => Promise<unknown>>;
}

/**
 * Starts the real server with short intervals (a revoked token is noticed at the next
 * heartbeat or long-poll, within 2 s) and a temporary folder named from `dirPrefix` before
 * the file's tests; runs the cleanups after each test; closes both after all.
 */
export function agentProcessFixture(dirPrefix: string): AgentProcessFixture {
  const fixture: AgentProcessFixture = {
    server: undefined as unknown as RealAgentTestServer,
    dir: '',
    cleanups: [],
  };
  beforeAll(async () => {
    fixture.server = await startRealAgentTestServer({
      heartbeatSeconds: 2,
      longPollWaitSeconds: 2,
    });
    fixture.dir = await mkdtemp(join(tmpdir(), dirPrefix));
  });
  afterEach(async () => {
    for (const cleanup of fixture.cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await fixture.server?.close();
    if (fixture.dir) await rm(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}
