import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseTarget } from '../../server/config.ts';
import { redeemEnrollment } from '../../server/enrollments/redeem-enrollment.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest, migrationProvider } from '../../server/storage/migrate.ts';
import { enrollmentAlphabet } from '../../shared/enrollments.ts';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import { freshDatabase } from '../helpers/postgres.ts';

/**
 * Enrolment codes on both databases, through two instances where PostgreSQL has them: made
 * by IT (`printing.agents.write`), traded once for a token bound to the agent, refused with
 * the reason when used up, expired, revoked or unknown (docs/it-guide.md, "Enrol a PC").
 */
describe.each(dialects)('enrolment codes (%s)', (dialect) => {
  let instances: Instances;
  let company: number;
  let it_: string;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    company = await instances.one.createCompany('Fleet Co');
    it_ = await instances.one.token(company, ['printing.agents.write']);
  });
  afterAll(() => instances.close());

  const create = async (body: Record<string, unknown> = {}) => {
    const answer = await instances.one.request('POST', '/printing/enrollments', {
      token: it_,
      body,
    });
    expect(answer.status).toBe(201);
    return answer.body.data as { id: number; code: string };
  };
  const redeem = (code: string, uuid = randomUUID(), via = instances.two) =>
    via.request('POST', '/printing/enroll', { body: { code, uuid, hostname: 'till-1' } });

  it('makes a short code without ambiguous characters, shown once and stored hashed', async () => {
    const made = await create({ routes: ['receipts'], uses: 3 });
    expect(made.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    for (const char of made.code.replace('-', '')) expect(enrollmentAlphabet).toContain(char);
    expect(made.code).not.toMatch(/[01OILU]/);
    const listed = await instances.two.request('GET', '/printing/enrollments', { token: it_ });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(made.code);
    expect(listed.body.data[0]).toMatchObject({ id: made.id, state: 'active', uses: 3, used: 0 });
    const rows = await instances.one.app.services.storage.db
      .selectFrom('print_enrollments')
      .selectAll()
      .execute();
    expect(JSON.stringify(rows)).not.toContain(made.code.replace('-', ''));
  });

  it('trades the code for a token bound to the agent, which cannot act as another agent', async () => {
    const made = await create({ routes: ['receipts', 'labels'] });
    const uuid = randomUUID();
    // Typed in lower case with a space: still the code.
    const answer = await redeem(made.code.toLowerCase().replace('-', ' '), uuid);
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({
      agent_id: uuid,
      company: { id: company, name: 'Fleet Co' },
      routes: ['receipts', 'labels'],
    });
    const token = answer.body.data.token as string;
    const register = (id: string) =>
      instances.one.request('POST', '/printing/register', {
        token,
        body: { uuid: id, name: 'till', hostname: 'till', platform: 'linux', version: '0.1.0' },
      });
    expect((await register(uuid)).status).toBe(201);
    const other = randomUUID();
    const refused = await register(other);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain(`cannot act as agent ${other}`);
    const asOther = await instances.two.request('GET', '/printing/config', {
      token,
      headers: { 'x-agent-id': other },
    });
    expect(asOther.status).toBe(403);
    const asItself = await instances.two.request('GET', '/printing/config', {
      token,
      headers: { 'x-agent-id': uuid },
    });
    expect(asItself.status).toBe(200);
    const listed = await instances.one.request('GET', '/printing/enrollments', { token: it_ });
    const record = listed.body.data.find((row: { id: number }) => row.id === made.id);
    expect(record).toMatchObject({ state: 'used_up', used: 1 });
    expect(record.agents.map((agent: { id: string }) => agent.id)).toEqual([uuid]);
  });

  it('enrols one agent when a one-use code is used twice at once', async () => {
    const made = await create();
    const answers = await Promise.all([
      redeem(made.code, randomUUID(), instances.one),
      redeem(made.code, randomUUID(), instances.two),
      redeem(made.code, randomUUID(), instances.one),
      redeem(made.code, randomUUID(), instances.two),
    ]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422]);
    for (const refused of answers.filter((answer) => answer.status === 422)) {
      expect(refused.body.errors.code[0]).toBe(
        'This enrolment code has been used up (1 of 1 agent enrolled); ask IT for a new code.',
      );
    }
    const tokens = await instances.one.app.services.storage.db
      .selectFrom('print_enrollment_agents')
      .select('token_id')
      .innerJoin(
        'print_enrollments',
        'print_enrollments.id',
        'print_enrollment_agents.enrollment_id',
      )
      .where('print_enrollments.id', '=', made.id)
      .execute();
    expect(tokens).toHaveLength(1);
  });

  it('refuses an expired code, saying when it expired', async () => {
    const made = await create({ expires_in: 60 });
    instances.one.clock.advance(61_000);
    instances.two.clock.advance(61_000);
    const answer = await redeem(made.code);
    expect(answer.status).toBe(422);
    expect(answer.body.errors.code[0]).toMatch(
      /^This enrolment code expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; ask IT for a new code\.$/,
    );
  });

  it('refuses a revoked code, and an unknown one', async () => {
    const made = await create({ uses: 5 });
    const revoked = await instances.two.request('POST', `/printing/enrollments/${made.id}/revoke`, {
      token: it_,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.state).toBe('revoked');
    const answer = await redeem(made.code);
    expect(answer.status).toBe(422);
    expect(answer.body.errors.code[0]).toMatch(/^This enrolment code was revoked at /);
    for (const code of ['ZZZZ-ZZZZ', 'not a code']) {
      const unknown = await redeem(code);
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors.code[0]).toBe(
        'This enrolment code is not known: check it for typos, or ask IT for a new one.',
      );
    }
  });

  it("needs printing.agents.write to make, list and revoke codes; another company's code is not found", async () => {
    const agent = await instances.one.token(company, ['printing.agent', 'printing.jobs.read']);
    const refused = await instances.one.request('POST', '/printing/enrollments', {
      token: agent,
      body: {},
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('printing.agents.write');
    const made = await create();
    const neighbour = await instances.one.createCompany('Neighbour');
    const theirs = await instances.one.token(neighbour, ['printing.agents.write']);
    const revoke = await instances.one.request('POST', `/printing/enrollments/${made.id}/revoke`, {
      token: theirs,
    });
    expect(revoke.status).toBe(404);
  });

  describe('routes an enrolment code grants', () => {
    const routes = (names: string[]) => ({
      routes: names.map((name) => ({ name, printer: 'EPSON' })),
    });

    it('lets the enrolled agent take the code’s routes and keep them, and add no others', async () => {
      const made = await create({ routes: ['receipts', 'labels'] });
      const uuid = randomUUID();
      const token = (await redeem(made.code, uuid)).body.data.token as string;
      const as = (method: string, path: string, body?: unknown) =>
        instances.one.request(method, path, { token, body });
      const registered = await as('POST', '/printing/register', {
        uuid,
        name: 'till',
        hostname: 'till',
        platform: 'linux',
        version: '0.1.0',
      });
      expect(registered.status).toBe(201);
      expect((await as('PUT', '/printing/routes', routes(['receipts']))).status).toBe(200);
      expect((await as('PUT', '/printing/routes', routes(['labels', 'receipts']))).status).toBe(
        200,
      );
      const beyond = await as('PUT', '/printing/routes', routes(['receipts', 'kitchen']));
      expect(beyond.status).toBe(403);
      expect(beyond.body.message).toContain('may not give it the route kitchen');
      const config = await as('GET', '/printing/config');
      expect(config.body.data.routes.map((route: { name: string }) => route.name)).toEqual([
        'labels',
        'receipts',
      ]);
    });

    it('grants nothing to the agents of a code without routes', async () => {
      const made = await create();
      const uuid = randomUUID();
      // Traded without the route: this address has spent its tries a minute above.
      const { storage, clock } = instances.one.app.services;
      const { token } = await redeemEnrollment(storage, { code: made.code, uuid }, clock.now());
      await instances.one.request('POST', '/printing/register', {
        token,
        body: { uuid, name: 'till', hostname: 'till', platform: 'linux', version: '0.1.0' },
      });
      const put = await instances.two.request('PUT', '/printing/routes', {
        token,
        body: routes(['receipts']),
      });
      expect(put.status).toBe(403);
    });

    it('refuses an agent asking for a route the code does not grant, and leaves the code unspent', async () => {
      const made = await create({ routes: ['receipts'] });
      const { storage, clock } = instances.one.app.services;
      const trade = (routes: string[]) =>
        redeemEnrollment(storage, { code: made.code, uuid: randomUUID(), routes }, clock.now());
      await expect(trade(['receipts', 'labels'])).rejects.toMatchObject({
        errors: {
          routes: [
            'This enrolment code grants the route receipts, and this agent asks for the route labels; nothing was used, the code still works. Start the agent with --route for the granted routes only, or ask IT for a code that grants labels (in the console: Agents, Enrol an agent).',
          ],
        },
      });
      const listed = await instances.two.request('GET', '/printing/enrollments', { token: it_ });
      const record = listed.body.data.find((row: { id: number }) => row.id === made.id);
      expect(record).toMatchObject({ state: 'active', used: 0, agents: [] });
      expect((await trade(['receipts'])).routes).toEqual(['receipts']);
      const after = await instances.two.request('GET', '/printing/enrollments', { token: it_ });
      expect(after.body.data.find((row: { id: number }) => row.id === made.id)).toMatchObject({
        state: 'used_up',
        used: 1,
      });
    });

    it('migration 023 gives the tokens enrolled before it the routes of their code', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'shopdesk-grants-'));
      const scratch = dialect === 'postgres' ? await freshDatabase() : null;
      const target: DatabaseTarget = scratch
        ? { kind: 'postgres', url: scratch.url }
        : { kind: 'sqlite', file: join(dir, 'before-023.sqlite') };
      const storage = openStorage(target);
      try {
        const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
        expect((await migrator.migrateTo('019_agent_fleet')).error).toBeUndefined();
        const at = '2026-01-01T00:00:00Z';
        await sql`insert into companies (name, created_at) values ('Old Co', ${at})`.execute(
          storage.db,
        );
        for (const [id, bound] of [
          [1, 'a0000000-0000-4000-8000-000000000001'],
          [2, null],
        ] as const) {
          await sql`insert into tokens (company_id, name, hash, permissions, created_at, agent_uuid)
            values (1, ${`t${id}`}, ${`h${id}`}, '["printing.agent"]', ${at}, ${bound})`.execute(
            storage.db,
          );
        }
        await sql`insert into print_enrollments (company_id, code_hash, routes, uses, used, expires_at, created_at)
          values (1, 'c', '["receipts"]', 1, 1, ${at}, ${at})`.execute(storage.db);
        await sql`insert into print_enrollment_agents (enrollment_id, company_id, agent_uuid, token_id, enrolled_at)
          values (1, 1, 'a0000000-0000-4000-8000-000000000001', 1, ${at})`.execute(storage.db);
        await migrateToLatest(storage);
        const rows = await storage.db
          .selectFrom('tokens')
          .select(['name', 'routes'])
          .orderBy('id')
          .execute();
        expect(rows).toEqual([
          { name: 't1', routes: '["receipts"]' },
          { name: 't2', routes: null },
        ]);
      } finally {
        await storage.close();
        await scratch?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe.each(dialects)('tries per address (%s)', (dialect) => {
  it('answers 429 with Retry-After past ten tries a minute from one address, counted by every instance', async () => {
    const instances = await startInstances(dialect);
    try {
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof instances.one.request>> | undefined;
      for (let i = 0; i < 11; i++) {
        last = await (i % 2 === 0 ? instances.one : instances.two).request(
          'POST',
          '/printing/enroll',
          {
            body: { code: 'ZZZZ-ZZZZ', uuid: randomUUID() },
          },
        );
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 10).every((status) => status === 422)).toBe(true);
      expect(statuses[10]).toBe(429);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await instances.close();
    }
  });
});
