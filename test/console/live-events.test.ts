import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { consoleUser, ensureConsoleBuilt, openStream, signIn } from '../helpers/console.ts';
import { type Instances, startInstances } from '../helpers/instances.ts';
import { createJob, integratorToken } from '../printing/helpers.ts';

/**
 * What wakes the console's live streams besides their poll: a job change on any instance
 * reaches the streams of every instance at once (on PostgreSQL a NOTIFY heard on each
 * instance's LISTEN connection), and only the streams of that job's company. The poll is
 * made a minute long here, so that only the notice can carry a change within the test.
 */
describe.each(['sqlite', 'postgres'] as const)('console live events on %s', (dialect) => {
  let instances: Instances;
  let shop: number;
  let neighbour: number;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    instances = await startInstances(dialect, { live: { pollMs: 60_000 } });
    shop = await instances.one.createCompany('Live Co');
    neighbour = await instances.one.createCompany('Quiet Neighbour');
  });
  afterAll(() => instances?.close());

  it('a job created through one instance reaches a stream open on the other before any poll', async () => {
    const cookie = await signIn(instances.two, await consoleUser(instances.two, shop, 'owner'));
    const stream = await openStream(`${instances.two.api}/events/stream`, { cookie });
    const first = await stream.nextChange();
    await createJob(instances.one, await integratorToken(instances.one, shop));
    const second = await stream.nextChange(5000);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    stream.close();
  });

  it("another company's job change makes no stream of this company read its version", async () => {
    const live = instances.two.app.services.live!;
    const owner = await consoleUser(instances.two, shop, 'owner');
    const stream = await openStream(`${instances.two.api}/events/stream`, {
      cookie: await signIn(instances.two, owner),
    });
    await stream.nextChange();
    const reads = vi.spyOn(live, 'current');
    try {
      const theirs = await integratorToken(instances.one, neighbour);
      await createJob(instances.one, theirs);
      // A job of this company after it: once its change arrived, the neighbour's was heard.
      await createJob(instances.one, await integratorToken(instances.one, shop));
      expect(await stream.nextChange(5000)).toBeDefined();
      // One read, for this company's own job; the neighbour's notice read nothing here.
      expect(reads.mock.calls.map(([companyId]) => companyId)).toEqual([shop]);
    } finally {
      reads.mockRestore();
      stream.close();
    }
  });
});
