import type { PostgresJobNotifier } from '../../server/printing/store/postgres/postgres-job-notifier.ts';
import type { TestServer } from '../helpers/server.ts';
import type { TestAgent } from './helpers.ts';

/** Helpers of the print-queue tests that run two server instances on one PostgreSQL. */

export const notifierOf = (server: TestServer) =>
  server.app.services.printing.notifier as PostgresJobNotifier;

/** The agent's calls made through another instance (same token, same X-Agent-Id). */
export function through(server: TestServer, agent: TestAgent) {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by path.
    call: <T = any>(method: string, path: string, body?: unknown) =>
      server.request<T>(method, path, {
        token: agent.token,
        body,
        headers: { 'x-agent-id': agent.uuid },
      }),
    next: (wait = 0) =>
      server.request('POST', '/printing/jobs/next', {
        token: agent.token,
        body: { wait },
        headers: { 'x-agent-id': agent.uuid },
      }),
  };
}

/**
 * Until a long-poll sleeps on the server, its claims done (`agentsWaiting`): listening alone is
 * not enough, the claim it makes right after would take a job queued then without a wake-up.
 */
export const untilWaiting = (server: TestServer) => until('waiting', server.agentsWaiting);

export async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 5000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not ${what} after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const wait = 10;
/** "Well under the wait": a wake-up, not the last claim attempt when the wait ends. */
export const wellUnderTheWait = (wait * 1000) / 2;
