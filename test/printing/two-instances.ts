import { afterAll, beforeAll } from 'vitest';
import type { PostgresJobNotifier } from '../../server/printing/store/postgres/postgres-job-notifier.ts';
import { type Instances, startInstances, type TestDialect } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { integratorToken, type TestAgent } from './helpers.ts';

/** Helpers of the print-queue tests that run two server instances on one PostgreSQL. */

/** Two instances with a company and its integrator, as the tests of one dialect share them. */
export interface CompanyOnInstances {
  instances: Instances;
  /** `instances.one` and `instances.two` (on SQLite the same instance). */
  one: TestServer;
  two: TestServer;
  company: number;
  /** A token of the company's integrator (`printing.jobs.create` and `.read`). */
  integrator: string;
  /** A route of its own for each test: `prefix-1`, `prefix-2`, … */
  nextRoute(prefix: string): string;
}

/**
 * Starts two instances of `dialect` with a company and its integrator before the tests of the
 * enclosing `describe` (or file), and closes them after. The fields are set once `beforeAll`
 * has run.
 */
export function companyOnInstances(dialect: TestDialect): CompanyOnInstances {
  let routeNumber = 0;
  const setup: CompanyOnInstances = {
    instances: undefined as unknown as Instances,
    one: undefined as unknown as TestServer,
    two: undefined as unknown as TestServer,
    company: 0,
    integrator: '',
    nextRoute: (prefix) => `${prefix}-${++routeNumber}`,
  };
  beforeAll(async () => {
    setup.instances = await startInstances(dialect);
    ({ one: setup.one, two: setup.two } = setup.instances);
    setup.company = await setup.one.createCompany();
    setup.integrator = await integratorToken(setup.one, setup.company);
  });
  afterAll(() => setup.instances?.close());
  return setup;
}

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
