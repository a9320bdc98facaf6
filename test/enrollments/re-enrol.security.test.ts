import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EnrollmentRefused,
  readEnrolledToken,
  redeemEnrollmentCode,
} from '../../agent/core/enrollment.ts';
import { redeemEnrollment } from '../../server/enrollments/redeem-enrollment.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { shopdesk } from '../helpers/shopdesk-cli.ts';
import { createJob, integratorToken, registerAgent } from '../printing/helpers.ts';

/**
 * An enrolment code enrols NEW agents (docs/security.md, "Enrolment codes"): redeemed with the
 * uuid of an agent the company already knows (agent uuids are on every job record), it used
 * to bind a new token to that agent, with its routes, history and queued documents. Now that
 * is refused and the agent left as it was; only a code made to re-enrol that agent
 * (`agent_id`, `--agent`, the console's "Re-enrol this computer") enrols it again, and
 * revokes its old tokens. Both databases, through two instances on PostgreSQL; each run
 * stays within the 10 tries a minute an address gets.
 */
describe.each(dialects)('re-enrolling an agent (%s)', (dialect) => {
  let instances: Instances;
  let company: number;
  let it_: string;
  let integrator: string;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    company = await instances.one.createCompany('Fleet Co');
    it_ = await instances.one.token(company, ['printing.agents.write']);
    integrator = await integratorToken(instances.one, company);
  });
  afterAll(() => instances?.close());

  const makeCode = async (body: Record<string, unknown> = {}) => {
    const answer = await instances.one.request('POST', '/printing/enrollments', {
      token: it_,
      body,
    });
    expect(answer.status).toBe(201);
    return answer.body.data as { id: number; code: string; agent_id: string | null };
  };
  const redeem = (code: string, uuid: string, via: TestServer = instances.two) =>
    via.request('POST', '/printing/enroll', { body: { code, uuid, hostname: 'till-1' } });
  const as = (token: string, uuid: string, via: TestServer = instances.one) => ({
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by path.
    call: <T = any>(method: string, path: string, body?: unknown) =>
      via.request<T>(method, path, { token, body, headers: { 'x-agent-id': uuid } }),
  });
  const routeNames = async (token: string, uuid: string, via: TestServer) => {
    const config = await as(token, uuid, via).call('GET', '/printing/config');
    expect(config.status).toBe(200);
    return config.body.data.routes.map((route: { name: string }) => route.name) as string[];
  };
  const codeRecord = async (id: number) => {
    const listed = await instances.two.request('GET', '/printing/enrollments', { token: it_ });
    return listed.body.data.find((row: { id: number }) => row.id === id);
  };

  /** An enrolled agent that registered and serves `receipts`, as a till does. */
  const enrolledTill = async () => {
    const made = await makeCode({ routes: ['receipts', 'labels'] });
    const uuid = randomUUID();
    const answer = await redeem(made.code, uuid);
    expect(answer.status).toBe(201);
    const token = answer.body.data.token as string;
    const till = as(token, uuid);
    const registered = await till.call('POST', '/printing/register', {
      uuid,
      name: 'Till 1',
      hostname: 'till-1',
      platform: 'linux',
      version: '0.1.0',
      printers: [{ name: 'EPSON', is_default: true }],
    });
    expect(registered.status).toBe(201);
    const routes = await till.call('PUT', '/printing/routes', {
      routes: [{ name: 'receipts', printer: 'EPSON' }],
    });
    expect(routes.status).toBe(200);
    return { uuid, token };
  };

  it('refuses a code for new agents used with the uuid of an agent the company knows, and leaves that agent as it was', async () => {
    const till = await enrolledTill();
    const queued = await createJob(instances.one, integrator, { route: 'receipts' });
    const made = await makeCode({ routes: ['receipts', 'kitchen'] });
    const refused = await redeem(made.code, till.uuid.toUpperCase());
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `The agent ${till.uuid} is already enrolled in this company, and this code enrols new agents only; nothing was changed. To enrol that computer again, ask IT for a code made for it (the console's "Re-enrol this computer" on the agent, or shopdesk enrollment create --agent ${till.uuid}).`,
    );
    expect(refused.body).not.toHaveProperty('data');
    // The code's one use is not spent, and no token was issued for the agent.
    expect(await codeRecord(made.id)).toMatchObject({ state: 'active', used: 0, agents: [] });
    const bound = await instances.one.app.services.storage.db
      .selectFrom('tokens')
      .select(['id', 'revoked_at'])
      .where('agent_uuid', '=', till.uuid)
      .execute();
    expect(bound).toEqual([{ id: expect.any(Number), revoked_at: null }]);
    // The agent's own token still works on both instances, its routes unchanged, and it
    // alone gets its queued job.
    for (const via of [instances.one, instances.two]) {
      expect(await routeNames(till.token, till.uuid, via)).toEqual(['receipts']);
    }
    const claimed = await as(till.token, till.uuid, instances.two).call(
      'POST',
      '/printing/jobs/next',
      { wait: 0 },
    );
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.id).toBe(queued.id);

    // Bound to a live token but not registered yet: known all the same.
    const pending = randomUUID();
    await createToken(instances.one.app.services.storage.db, {
      companyId: company,
      permissions: ['printing.agent'],
      name: 'placed by IT',
      agentUuid: pending,
    });
    expect((await redeem(made.code, pending, instances.one)).status).toBe(409);

    // The same code still enrols a new agent.
    const fresh = randomUUID();
    const enrolled = await redeem(made.code, fresh);
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.data.agent_id).toBe(fresh);
  });

  it('re-enrols the agent with a code made for it: its old token is revoked, the new one acts as it with its routes', async () => {
    const till = await enrolledTill();
    const made = await makeCode({ agent_id: till.uuid.toUpperCase(), name: 'Till 1 again' });
    expect(made.agent_id).toBe(till.uuid);
    expect(await codeRecord(made.id)).toMatchObject({ agent_id: till.uuid, uses: 1 });

    // Another computer cannot use it: refused, nothing spent, the agent untouched.
    const other = randomUUID();
    const elsewhere = await redeem(made.code, other);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors.code[0]).toBe(
      `This enrolment code re-enrols another computer (agent ${till.uuid}); use it on that computer, or ask IT for a code for a new agent.`,
    );
    expect(await routeNames(till.token, till.uuid, instances.two)).toEqual(['receipts']);

    const answer = await redeem(made.code, till.uuid);
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({ agent_id: till.uuid, company: { id: company } });
    const renewed = answer.body.data.token as string;
    // The old token is refused on both instances (the other hears of it from PostgreSQL).
    for (const via of [instances.two, instances.one]) {
      await expect
        .poll(
          async () => (await as(till.token, till.uuid, via).call('GET', '/printing/config')).status,
        )
        .toBe(401);
    }
    // The new one acts as the same agent, routes and all, and may add what the old one could.
    expect(await routeNames(renewed, till.uuid, instances.one)).toEqual(['receipts']);
    const widened = await as(renewed, till.uuid, instances.two).call('PUT', '/printing/routes', {
      routes: [
        { name: 'labels', printer: 'EPSON' },
        { name: 'receipts', printer: 'EPSON' },
      ],
    });
    expect(widened.status).toBe(200);
    expect(await codeRecord(made.id)).toMatchObject({
      state: 'used_up',
      used: 1,
      agents: [{ id: till.uuid }],
    });
    const tokens = await instances.one.app.services.storage.db
      .selectFrom('tokens')
      .select(['revoked_at'])
      .where('agent_uuid', '=', till.uuid)
      .orderBy('id')
      .execute();
    expect(tokens.map((row) => row.revoked_at !== null)).toEqual([true, false]);
  });

  it('lets an agent trade its code again when the first answer was lost, until it registers', async () => {
    // Traded without HTTP: this address spends its tries a minute on the tests above.
    const { storage, clock } = instances.one.app.services;
    const made = await makeCode({ routes: ['receipts'], uses: 3 });
    const uuid = randomUUID();
    const lost = await redeemEnrollment(storage, { code: made.code, uuid }, clock.now());
    const again = await redeemEnrollment(storage, { code: made.code, uuid }, clock.now());
    expect(again.agent_id).toBe(uuid);
    instances.one.app.services.tokenCache?.changed();
    // The token whose answer never arrived is revoked; the one the agent holds works.
    await expect
      .poll(
        async () =>
          (await as(lost.token, uuid, instances.two).call('GET', '/printing/config')).status,
      )
      .toBe(401);
    const registered = await as(again.token, uuid, instances.two).call(
      'POST',
      '/printing/register',
      {
        uuid,
        name: 'Till 2',
        hostname: 'till-2',
        platform: 'linux',
        version: '0.1.0',
      },
    );
    expect(registered.status).toBe(201);
    // Registered, it is an agent of the company: the code's last use does not take it over.
    await expect(redeemEnrollment(storage, { code: made.code, uuid }, clock.now())).rejects.toThrow(
      `The agent ${uuid} is already enrolled in this company`,
    );
    expect(await routeNames(again.token, uuid, instances.one)).toEqual([]);
    // Nor does another code's first use before it registers.
    const pending = randomUUID();
    await redeemEnrollment(storage, { code: made.code, uuid: pending }, clock.now());
    const other = await makeCode();
    await expect(
      redeemEnrollment(storage, { code: other.code, uuid: pending }, clock.now()),
    ).rejects.toThrow(`The agent ${pending} is already enrolled in this company`);
  });

  it('makes a re-enrolment code only for an agent of the company, for one use', async () => {
    const unknown = await instances.one.request('POST', '/printing/enrollments', {
      token: it_,
      body: { agent_id: randomUUID() },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.agent_id).toEqual(['The selected agent id is invalid.']);
    const neighbour = await instances.one.createCompany('Neighbour');
    const theirs = await instances.one.token(neighbour, ['printing.agents.write']);
    const till = await enrolledTill();
    const across = await instances.two.request('POST', '/printing/enrollments', {
      token: theirs,
      body: { agent_id: till.uuid },
    });
    expect(across.status).toBe(422);
    const twice = await instances.one.request('POST', '/printing/enrollments', {
      token: it_,
      body: { agent_id: till.uuid, uses: 2 },
    });
    expect(twice.status).toBe(422);
    expect(twice.body.errors.uses).toEqual([
      'A code that re-enrols an agent enrols it once: leave uses out, or set it to 1.',
    ]);
  });
});

/** The operator's command line, on the server's SQLite file. */
describe('shopdesk enrollment create --agent', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('makes a code that re-enrols a registered agent, and list says which', async () => {
    const company = await server.createCompany('Cli Co');
    const till = await registerAgent(server, company);
    const db = ['--db', server.dbFile];
    const made = await shopdesk(
      'enrollment',
      'create',
      '--company',
      String(company),
      '--agent',
      till.uuid.toUpperCase(),
      ...db,
    );
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}\n$/);
    expect(made.stderr).toContain(
      `re-enrols agent ${till.uuid} (its old tokens are revoked when it is used)`,
    );
    const listed = await shopdesk('enrollment', 'list', '--company', String(company), ...db);
    expect(listed.stdout.split('\n')[0]).toContain(`re-enrols ${till.uuid}`);
    const nobody = randomUUID();
    const refused = await shopdesk(
      'enrollment',
      'create',
      '--company',
      String(company),
      '--agent',
      nobody,
      ...db,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`no agent ${nobody} in company ${company}`);
  });
});

/** The agent's side (`shopdesk agent --enroll CODE`): its state directory keeps its uuid. */
describe('the agent trading a code on a computer the server knows', () => {
  let server: TestServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is refused in the server’s words with a code for new agents, and enrols with a code made for it', async () => {
    const company = await server.createCompany('Agent Co');
    const till = await registerAgent(server, company);
    const stateDir = mkdtempSync(join(tmpdir(), 'shopdesk-re-enrol-'));
    dirs.push(stateDir);
    writeFileSync(
      join(stateDir, 'agent.json'),
      JSON.stringify({ uuid: till.uuid, created_at: '2026-11-01T00:00:00.000Z' }),
    );
    const it_ = await server.token(company, ['printing.agents.write']);
    const code = async (body: Record<string, unknown>) =>
      (await server.request('POST', '/printing/enrollments', { token: it_, body })).body.data
        .code as string;
    const trade = async (made: string) =>
      redeemEnrollmentCode({ serverUrl: server.url, code: made, stateDir, hostname: 'till-1' });
    const refusal = await trade(await code({})).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(EnrollmentRefused);
    expect((refusal as Error).message).toMatch(
      new RegExp(
        `^The agent ${till.uuid} is already enrolled in this company, .*shopdesk enrollment create --agent ${till.uuid}\\)\\.$`,
      ),
    );
    expect(await readEnrolledToken(stateDir)).toBeNull();
    // The shop's token it ran on still works.
    expect((await till.call('GET', '/printing/config')).status).toBe(200);
    const redeemed = await trade(await code({ agent_id: till.uuid }));
    expect(redeemed.agent_id).toBe(till.uuid);
    expect(await readEnrolledToken(stateDir)).toBe(redeemed.token);
    const config = await server.request('GET', '/printing/config', { token: redeemed.token });
    expect(config.status).toBe(200);
    expect(config.body.data.routes.map((route: { name: string }) => route.name)).toEqual([
      'receipts',
    ]);
  });
});
