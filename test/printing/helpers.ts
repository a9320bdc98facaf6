import { randomUUID } from 'node:crypto';
import type { Permission } from '../../shared/permissions.ts';
import type { ClaimedJob, QueuedJobRecord } from '../../shared/printing.ts';
import type { Answer, TestServer } from '../helpers/server.ts';

/** A print agent as the tests drive it: a token, a uuid, and its calls. */
export interface TestAgent {
  uuid: string;
  token: string;
  // biome-ignore lint/suspicious/noExplicitAny: like the harness's request(), tests read answers freely.
  call<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>>;
  next(wait?: number): Promise<Answer<{ data: ClaimedJob }>>;
}

export async function registerAgent(
  server: TestServer,
  companyId: number,
  routes: string[] = ['receipts'],
  token?: string,
): Promise<TestAgent> {
  const agentToken = token ?? (await server.token(companyId, ['printing.agent']));
  const uuid = randomUUID();
  const call = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { token: agentToken, body, headers: { 'x-agent-id': uuid } });
  const registered = await call('POST', '/printing/register', {
    uuid,
    name: `Till ${uuid.slice(0, 4)}`,
    hostname: 'till-1',
    platform: 'linux',
    version: '0.1.0',
    printers: [{ name: 'EPSON', is_default: true }],
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  if (routes.length > 0) {
    const put = await call('PUT', '/printing/routes', {
      routes: routes.map((name) => ({ name, printer: 'EPSON' })),
    });
    if (put.status !== 200) throw new Error(`routes: ${put.status}`);
  }
  return {
    uuid,
    token: agentToken,
    call,
    next: (wait = 0) => call('POST', '/printing/jobs/next', { wait }),
  };
}

export const sampleText = Buffer.from('Hello, printer\n').toString('base64');

export async function createJob(
  server: TestServer,
  token: string,
  body: Record<string, unknown> = {},
): Promise<QueuedJobRecord> {
  const answer = await server.request('POST', '/printing/jobs', {
    token,
    body: { route: 'receipts', content_type: 'text/plain', content_base64: sampleText, ...body },
  });
  if (answer.status !== 201) {
    throw new Error(`create job: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.data;
}

export async function integratorToken(
  server: TestServer,
  companyId: number,
  permissions: Permission[] = ['printing.jobs.create', 'printing.jobs.read'],
): Promise<string> {
  return server.token(companyId, permissions);
}

/** A new company with an integrator's token and one agent serving `route`. */
export async function companyWithAgent(server: TestServer, route: string) {
  const company = await server.createCompany();
  const integrator = await integratorToken(server, company);
  const agent = await registerAgent(server, company, [route]);
  return { company, integrator, agent };
}
