import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { createJob, integratorToken, registerAgent } from './helpers.ts';

describe('claiming under contention', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('200 jobs, 20 agents on one route claiming in parallel: each job claimed exactly once', async () => {
    const company = await server.createCompany();
    const integrator = await integratorToken(server, company);
    const token = await server.token(company, ['printing.agent']);
    const agents = await Promise.all(
      Array.from({ length: 20 }, () => registerAgent(server, company, ['shared'], token)),
    );
    const created = new Set<number>();
    for (let i = 0; i < 200; i++) {
      created.add((await createJob(server, integrator, { route: 'shared' })).id);
    }
    const claims = new Map<number, string[]>();
    await Promise.all(
      agents.map(async (agent) => {
        for (;;) {
          const next = await agent.next();
          if (next.status === 204) return;
          expect(next.status).toBe(200);
          const id = next.body.data.id;
          claims.set(id, [...(claims.get(id) ?? []), agent.uuid]);
        }
      }),
    );
    const duplicated = [...claims].filter(([, holders]) => holders.length > 1);
    expect(duplicated).toEqual([]);
    expect(new Set(claims.keys())).toEqual(created);
    // The database agrees: every job claimed once, by the agent that received it.
    const rows = await server.app.services.storage.db
      .selectFrom('print_jobs')
      .select(['id', 'status', 'agent_id', 'attempts'])
      .where('company_id', '=', company)
      .execute();
    expect(rows).toHaveLength(200);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'claimed',
        attempts: 1,
        agent_id: claims.get(row.id)![0],
      });
    }
  });

  it('long-polling agents share a burst of jobs without duplicates', async () => {
    const company = await server.createCompany();
    const integrator = await integratorToken(server, company);
    const token = await server.token(company, ['printing.agent']);
    const agents = await Promise.all(
      Array.from({ length: 10 }, () => registerAgent(server, company, ['burst'], token)),
    );
    const received: number[] = [];
    const polls = agents.map(async (agent) => {
      for (;;) {
        const next = await agent.next(2);
        if (next.status === 204) return;
        received.push(next.body.data.id);
      }
    });
    await waitFor('the agents waiting', () => server.agentsWaiting());
    const ids = await Promise.all(
      Array.from(
        { length: 50 },
        async () => (await createJob(server, integrator, { route: 'burst' })).id,
      ),
    );
    await Promise.all(polls);
    expect([...received].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });
});
