import { describe, expect, it } from 'vitest';
import type { DatabaseTarget } from '../../server/config.ts';
import { openStorage } from '../../server/storage/database.ts';
import { isoNow } from '../../server/time.ts';
import { hashToken } from '../../server/tokens/token-secrets.ts';
import { dialects } from '../helpers/instances.ts';
import { writeFromAnotherThread } from '../helpers/sqlite-other-thread.ts';
import { createJob, registerAgent } from './helpers.ts';
import { companyOnInstances, untilWaiting, wait, wellUnderTheWait } from './two-instances.ts';

/**
 * Revocation reaches a long-poll that is already waiting (docs/printing.md): after a
 * wake-up and before its claim, `jobs/next` reads its token and agent again; revoked,
 * expired or gone → 401, and the job stays queued for another agent. On SQLite the token
 * is revoked from another connection, as `shopdesk token revoke` does; on PostgreSQL
 * through the other instance, and the job is queued there too.
 */
describe.each(dialects)('revocation during a long-poll on %s', (dialect) => {
  const shop = companyOnInstances(dialect);

  /**
   * A write from outside the server, as `shopdesk token revoke` (another process) or another
   * instance makes it: on SQLite from a connection in another thread, on PostgreSQL through
   * a connection of its own.
   */
  async function fromOutside(
    sqlite: [sql: string, parameters: unknown[]][],
    postgres: (storage: ReturnType<typeof openStorage>) => Promise<void>,
  ) {
    if (dialect === 'sqlite') {
      // Each statement must find its row, as the PostgreSQL side's `OrThrow` does.
      const changes = await writeFromAnotherThread(shop.one.dbFile, sqlite);
      expect(changes.every((count) => count > 0)).toBe(true);
      return;
    }
    const storage = openStorage(shop.two.app.services.config.database as DatabaseTarget);
    try {
      await postgres(storage);
    } finally {
      await storage.close();
    }
  }

  const revoke = (secret: string) => {
    const [revokedAt, hash] = [isoNow(), hashToken(secret)];
    return fromOutside(
      [['update tokens set revoked_at = ? where hash = ?', [revokedAt, hash]]],
      async (storage) => {
        await storage.db
          .updateTable('tokens')
          .set({ revoked_at: revokedAt })
          .where('hash', '=', hash)
          .execute();
      },
    );
  };

  /** The refused long-poll, a job queued after it began, and a second agent to take it. */
  async function refusedWhileWaiting(
    change: (agent: Awaited<ReturnType<typeof registerAgent>>) => Promise<void>,
  ) {
    const route = shop.nextRoute('revoked');
    const agent = await registerAgent(shop.one, shop.company, [route]);
    const waiting = agent.next(wait);
    await untilWaiting(shop.one);
    await change(agent);
    const sent = performance.now();
    const job = await createJob(shop.two, shop.integrator, { route });
    const answer = await waiting;
    expect(performance.now() - sent).toBeLessThan(wellUnderTheWait);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      'Bearer realm="shopdesk", error="invalid_token"',
    );
    expect(JSON.stringify(answer.body)).not.toContain('content_base64');
    const read = await shop.two.request('GET', `/printing/jobs/${job.id}`, {
      token: shop.integrator,
    });
    expect(read.body.data).toMatchObject({ status: 'queued', attempts: 0, agent_id: null });
    expect(read.body.data.events).toHaveLength(1);
    const other = await registerAgent(shop.two, shop.company, [route]);
    expect((await other.next()).body.data.id).toBe(job.id);
  }

  it('a token revoked while its long-poll waits claims nothing: 401', async () => {
    await refusedWhileWaiting(async (agent) => {
      await revoke(agent.token);
    });
  });

  it('a token that expires while its long-poll waits claims nothing: 401', async () => {
    const token = await shop.one.token(shop.company, ['printing.agent'], 1);
    const route = shop.nextRoute('expiring');
    const agent = await registerAgent(shop.one, shop.company, [route], token);
    const waiting = agent.next(wait);
    await untilWaiting(shop.one);
    // Both instances' clocks, as one time: a job queued now expires after the hold limit (24 h)
    // of its instance's clock, and two days between the instances would expire it at once.
    for (const server of new Set([shop.one, shop.two])) server.clock.advance(2 * 86_400_000);
    const job = await createJob(shop.two, shop.integrator, { route });
    expect((await waiting).status).toBe(401);
    const read = await shop.two.request('GET', `/printing/jobs/${job.id}`, {
      token: shop.integrator,
    });
    expect(read.body.data.status).toBe('queued');
  });

  it('an agent removed while its long-poll waits claims nothing: 401', async () => {
    await refusedWhileWaiting(async (agent) => {
      const agentRow = 'select id from print_agents where uuid = ?';
      await fromOutside(
        [
          [`delete from print_routes where agent_id = (${agentRow})`, [agent.uuid]],
          ['delete from print_agents where uuid = ?', [agent.uuid]],
        ],
        async (storage) => {
          const row = await storage.db
            .selectFrom('print_agents')
            .select('id')
            .where('uuid', '=', agent.uuid)
            .executeTakeFirstOrThrow();
          await storage.db.deleteFrom('print_routes').where('agent_id', '=', row.id).execute();
          await storage.db.deleteFrom('print_agents').where('id', '=', row.id).execute();
        },
      );
    });
  });

  it('a token still valid claims as before', async () => {
    const route = shop.nextRoute('valid');
    const agent = await registerAgent(shop.one, shop.company, [route]);
    const waiting = agent.next(wait);
    await untilWaiting(shop.one);
    const job = await createJob(shop.two, shop.integrator, { route });
    expect((await waiting).body.data.id).toBe(job.id);
  });
});
