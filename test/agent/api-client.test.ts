import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentApiClient,
  type AgentApiClientOptions,
  ApiError,
  ServerUnreachableError,
  UnexpectedResponseError,
} from '../../agent/core/api-client.ts';
import { backoffDelay, parseRetryAfter } from '../../agent/core/backoff.ts';
import { waitFor } from '../helpers/wait.ts';
import { type AgentTestServer, startAgentTestServer } from './helpers/agent-test-server.ts';

let server: AgentTestServer;
const clients: AgentApiClient[] = [];
const agentId = randomUUID();

beforeEach(async () => {
  server = await startAgentTestServer();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await server.close();
});

type Retry = Parameters<NonNullable<AgentApiClientOptions['onRetry']>>[0];

function makeClient(options: Partial<AgentApiClientOptions> = {}) {
  const retries: Retry[] = [];
  const client = new AgentApiClient({
    serverUrl: server.url,
    token: server.token,
    agentId,
    backoff: { baseMs: 20, maxMs: 1000 },
    random: () => 0.5,
    onRetry: (info) => retries.push(info),
    ...options,
  });
  clients.push(client);
  return { client, retries };
}

async function registered(options: Partial<AgentApiClientOptions> = {}) {
  const made = makeClient(options);
  await made.client.register({
    uuid: agentId,
    name: 'till 1',
    hostname: 'till-1',
    platform: 'linux',
    version: '0.1.0',
    printers: [],
  });
  await made.client.putRoutes([{ name: 'receipts', printer: 'P', enabled: true, options: {} }]);
  return made;
}

describe('AgentApiClient against the real server', () => {
  it('registers, reads config, saves routes, claims and confirms, with both headers on every call', async () => {
    const { client } = await registered();
    const config = await client.getConfig();
    expect(config.routes.map((route) => route.name)).toEqual(['receipts']);
    const created = await server.createJob({ route: 'receipts', title: 'R1', content: 'hello' });
    const job = await client.claimNextJob(0);
    expect(job).toMatchObject({ id: created.id, document: { content_base64: 'aGVsbG8=' } });
    const confirmed = await client.confirmJob(created.id, { printer: 'P' });
    expect(confirmed.status).toBe('printed');
    // Confirming twice is harmless.
    expect((await client.confirmJob(created.id, { printer: 'P' })).status).toBe('printed');
    for (const request of server.proxy.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${server.token}`);
      expect(request.headers['x-agent-id']).toBe(agentId);
    }
    expect(server.proxy.requests.map((request) => request.path)).toEqual([
      '/printing/register',
      '/printing/routes',
      '/printing/config',
      '/printing/jobs/next',
      `/printing/jobs/${created.id}/confirm`,
      `/printing/jobs/${created.id}/confirm`,
    ]);
  });

  it('answers null when no job came within the wait (204)', async () => {
    const { client } = await registered();
    expect(await client.claimNextJob(0)).toBeNull();
  });

  it('retries 5xx with exponential backoff and full jitter, then succeeds', async () => {
    const { client, retries } = await registered();
    server.proxy.addFault({ path: /^\/printing\/config$/, status: 503, times: 1 });
    server.proxy.addFault({ path: /^\/printing\/config$/, status: 500, times: 1 });
    const config = await client.getConfig();
    expect(config.company.name).toBe('E2E shop');
    // random() = 0.5 of 20·2^0 and 20·2^1.
    expect(retries.map((retry) => retry.delayMs)).toEqual([10, 20]);
    expect(retries.map((retry) => (retry.error as ApiError).status)).toEqual([503, 500]);
  });

  it('honours Retry-After on a 429 (RFC 9110 §10.2.3)', async () => {
    const { client, retries } = await registered();
    server.proxy.addFault({
      path: /^\/printing\/heartbeat$/,
      status: 429,
      headers: { 'retry-after': '1' },
      body: { success: false, message: 'Too many requests.', code: 'rate_limited' },
    });
    const started = Date.now();
    await client.heartbeat({ held_job_ids: [] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries).toMatchObject([{ delayMs: 1000, attempt: 1 }]);
  });

  it('gives up after the last attempt with a typed ApiError', async () => {
    const { client, retries } = await registered({ attempts: 3 });
    server.proxy.addFault({ path: /^\/printing\/config$/, status: 502, times: 5 });
    const error = await client.getConfig().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502 });
    expect(retries).toHaveLength(2);
  });

  it('does not retry a 409 and carries its code', async () => {
    const { client, retries } = await registered();
    const created = await server.createJob({ route: 'receipts', content: 'x' });
    const error = await client.confirmJob(created.id, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'conflict' });
    expect(retries).toHaveLength(0);
  });

  it('retries an idempotent call after a dropped connection', async () => {
    const { client, retries } = await registered();
    server.proxy.addFault({ path: /^\/printing\/config$/, status: 'drop' });
    await client.getConfig();
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toBeInstanceOf(ServerUnreachableError);
  });

  it('never repeats a reprint whose answer was lost: a second job would be printed', async () => {
    const { client } = await registered();
    const created = await server.createJob({ route: 'receipts', content: 'x' });
    await client.claimNextJob(0);
    await client.confirmJob(created.id, {});
    server.proxy.addFault({ path: /\/reprint$/, status: 'drop' });
    await expect(client.reprintJob(created.id)).rejects.toBeInstanceOf(ServerUnreachableError);
    expect(
      server.proxy.requests.filter((request) => request.path.endsWith('/reprint')),
    ).toHaveLength(1);
  });

  it('rejects a 2xx answer that does not match the shared contract', async () => {
    const { client } = await registered();
    server.proxy.addFault({
      path: /^\/printing\/config$/,
      status: 200,
      body: { data: { company: 'x' } },
    });
    await expect(client.getConfig()).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  it('long-polls past its ordinary request timeout, and wakes when a job arrives', async () => {
    const { client } = await registered({ requestTimeoutMs: 300 });
    const claimed = client.claimNextJob(5);
    await waitFor('the long-poll waiting', () => server.server.agentsWaiting());
    // Its ordinary timeout passes while it waits: the long-poll is not cut by it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await server.createJob({ route: 'receipts', content: 'late' });
    const job = await claimed;
    expect(job?.document.content_base64).toBe(Buffer.from('late').toString('base64'));
  });

  it('ends a long-poll at once when aborted', async () => {
    const { client } = await registered();
    const controller = new AbortController();
    const claimed = client.claimNextJob(10, controller.signal);
    await waitFor('the long-poll waiting', () => server.server.agentsWaiting());
    const started = Date.now();
    controller.abort();
    await expect(claimed).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('names the server but never the token when it cannot connect', async () => {
    // Port 1 (tcpmux) has no listener here: connections are refused. (A port probed free a
    // moment ago is not safe: a parallel test's server may take it.)
    const port = 1;
    const { client, retries } = makeClient({ serverUrl: `http://127.0.0.1:${port}`, attempts: 2 });
    const error = (await client
      .getConfig()
      .catch((caught: unknown) => caught)) as ServerUnreachableError;
    expect(error).toBeInstanceOf(ServerUnreachableError);
    expect(error.notSent).toBe(true);
    expect(error.message).toContain(`127.0.0.1:${port}`);
    const everything = JSON.stringify([
      error.message,
      error.stack,
      retries.map((r) => r.error.message),
    ]);
    expect(everything).not.toContain(server.token);
  });

  it('reports 401 as ApiError unauthenticated without retrying', async () => {
    const { client, retries } = makeClient({ token: 'wrong-token' });
    const error = await client.getConfig().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(JSON.stringify(error)).not.toContain('wrong-token');
    expect(retries).toHaveLength(0);
  });
});

describe('backoff', () => {
  it('draws full jitter below an exponential ceiling capped at maxMs', () => {
    const policy = { baseMs: 100, maxMs: 1000 };
    expect(
      [0, 1, 2, 3, 4, 10].map((attempt) => backoffDelay(policy, attempt, () => 0.999)),
    ).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(policy, 3, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
