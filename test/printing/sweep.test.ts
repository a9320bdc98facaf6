import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../server/app.ts';
import { createCompany } from '../../server/companies/create-company.ts';
import { defaultServerConfig } from '../../server/config.ts';
import { registerAgent } from '../../server/printing/agents/register-agent.ts';
import { updateRouteList } from '../../server/printing/agents/update-route-list.ts';
import { claimJob } from '../../server/printing/jobs/claim-job.ts';
import { createJob } from '../../server/printing/jobs/create-job.ts';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.ts';
import { createJob as createJobOverHttp, integratorToken } from './helpers.ts';

describe('sweeps', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('a sweep asked for while another runs sweeps again at the new time', async () => {
    const company = await server.createCompany();
    const token = await integratorToken(server, company);
    const job = await createJobOverHttp(server, token, { expires_in: 10 });
    const printing = server.app.services.printing;
    const first = printing.sweep();
    server.clock.advance(11_000);
    const second = printing.sweep();
    expect((await first).expired).not.toContain(job.id);
    expect((await second).expired).toEqual([job.id]);
  });

  it('runs once at start-up: a lease that ran out while the server was down fails the job', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-sweep-'));
    const config = {
      ...defaultServerConfig,
      port: 0,
      database: { kind: 'sqlite' as const, file: join(dir, 'db.sqlite') },
      rateLimitPerMinute: 0,
      logLevel: 'silent',
    };
    const clock = new TestClock();
    const log = pino({ level: 'silent' });
    try {
      const first = await startApp(config, { clock, log });
      const storage = first.services.storage;
      const company = await createCompany(storage.db, 'Restarted');
      const { row } = await registerAgent(
        first.services,
        storage.db,
        company,
        {
          uuid: '6f1c3a52-1d0e-4a7b-9a59-0c1c1e2b7d10',
          name: 'till',
          hostname: 'till',
          platform: 'linux',
          version: '1',
          printers: [],
        },
        clock.now(),
        30,
      );
      const agent = { rowId: row.id, companyId: company, uuid: row.uuid };
      await updateRouteList(storage, storage.db, agent, [
        { name: 'receipts', printer: 'p', enabled: true, options: {} },
      ]);
      const { queue } = first.services.printing;
      const job = await createJob(
        queue,
        storage.db,
        company,
        {
          route: 'receipts',
          content_type: 'text/plain',
          content: Buffer.from('x'),
          copies: 1,
          priority: 5,
          options: {},
        },
        clock.now(),
      );
      expect(
        await claimJob(queue, storage.db, agent, clock.now(), config.leaseSeconds),
      ).toBeDefined();
      await first.close();

      clock.advance((config.leaseSeconds + 1) * 1000);
      const second = await startApp(config, { clock, log });
      const after = await second.services.storage.db
        .selectFrom('print_jobs')
        .select(['status', 'error_code'])
        .where('id', '=', job.id)
        .executeTakeFirstOrThrow();
      await second.close();
      expect(after).toEqual({ status: 'failed', error_code: 'lease_expired' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
