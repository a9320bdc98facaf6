import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The printer state fields of the agent contract (docs/printing.md, "Printer states"):
 * accepted, checked and stored on register and heartbeat, and returned in the agent record;
 * an agent older than the fields still registers and its printers read `unknown`.
 */

const receiptPrinter = {
  name: 'EPSON TM-T20',
  is_default: true,
  state: 'stopped',
  reasons: ['paused', 'media-empty-error'],
  accepting_jobs: true,
  message: 'Paper out',
} as const;

const registration = (uuid: string, printers: unknown[]) => ({
  uuid,
  name: 'Front till',
  hostname: 'till-1',
  platform: 'linux',
  version: '1.2.3',
  printers,
});

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('printer states on %s', (_name, postgres) => {
  let database: FreshDatabase | undefined;
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    database = postgres ? await freshDatabase() : undefined;
    server = await startTestServer(
      database ? { database: { kind: 'postgres', url: database.url } } : {},
    );
    token = await server.token(await server.createCompany(), ['printing.agent']);
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  const agentConfig = async (uuid: string) =>
    (await server.request('GET', '/printing/config', { token, headers: { 'x-agent-id': uuid } }))
      .body.data.agent;

  it('stores the state a register reports and returns it in the agent record', async () => {
    const uuid = randomUUID();
    const registered = await server.request('POST', '/printing/register', {
      token,
      body: registration(uuid, [receiptPrinter]),
    });
    expect(registered.status).toBe(201);
    expect(registered.body.data.printers).toEqual([receiptPrinter]);
    expect((await agentConfig(uuid)).printers).toEqual([receiptPrinter]);
  });

  it('fills the fields in for an agent that does not send them: unknown, no reasons, null', async () => {
    const uuid = randomUUID();
    const registered = await server.request('POST', '/printing/register', {
      token,
      body: registration(uuid, [{ name: 'Zebra', is_default: false }]),
    });
    const older = {
      name: 'Zebra',
      is_default: false,
      state: 'unknown',
      reasons: [],
      accepting_jobs: null,
      message: null,
    };
    expect(registered.body.data.printers).toEqual([older]);
    expect((await agentConfig(uuid)).printers).toEqual([older]);
  });

  it('a heartbeat replaces the printers and their state', async () => {
    const uuid = randomUUID();
    await server.request('POST', '/printing/register', {
      token,
      body: registration(uuid, [receiptPrinter]),
    });
    const ready = { ...receiptPrinter, state: 'idle', reasons: [], message: null };
    const beat = await server.request('POST', '/printing/heartbeat', {
      token,
      headers: { 'x-agent-id': uuid },
      body: { printers: [ready], held_job_ids: [] },
    });
    expect(beat.status).toBe(200);
    expect((await agentConfig(uuid)).printers).toEqual([ready]);
  });

  describe.each([
    ['an unknown state', { state: 'jammed' }, 'printers.0.state'],
    ['a reason that is no IPP keyword', { reasons: ['Media Empty'] }, 'printers.0.reasons.0'],
    ['a reason too long', { reasons: [`a${'b'.repeat(255)}`] }, 'printers.0.reasons.0'],
    ['more than 32 reasons', { reasons: Array(33).fill('other') }, 'printers.0.reasons'],
    ['accepting_jobs as text', { accepting_jobs: 'yes' }, 'printers.0.accepting_jobs'],
    ['a message too long', { message: 'x'.repeat(1024) }, 'printers.0.message'],
  ])('refuses %s with 422', (_case, change, field) => {
    it('on register and on heartbeat', async () => {
      const uuid = randomUUID();
      const bad = { ...receiptPrinter, ...change };
      const register = await server.request('POST', '/printing/register', {
        token,
        body: registration(uuid, [bad]),
      });
      expect(register.status).toBe(422);
      expect(Object.keys(register.body.errors)).toContain(field);
      await server.request('POST', '/printing/register', {
        token,
        body: registration(uuid, [receiptPrinter]),
      });
      const beat = await server.request('POST', '/printing/heartbeat', {
        token,
        headers: { 'x-agent-id': uuid },
        body: { printers: [bad] },
      });
      expect(beat.status).toBe(422);
      expect(Object.keys(beat.body.errors)).toContain(field);
      expect((await agentConfig(uuid)).printers).toEqual([receiptPrinter]);
    });
  });
});
