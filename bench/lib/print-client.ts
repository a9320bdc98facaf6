/**
 * The HTTP side of a print-queue bench over several instances: agents registered on one
 * instance each, jobs created through any of them.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';

export interface Tokens {
  agentToken: string;
  integratorToken: string;
}

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, checked by status.
  body: any;
}

export class PrintClient {
  private readonly tokens: Tokens;
  private readonly dispatcher: Agent;

  /** `dispatcher`: the connections to share with other clients (default: a pool of its own). */
  constructor(
    tokens: Tokens,
    dispatcher = new Agent({ connections: 256, keepAliveTimeout: 60_000, pipelining: 1 }),
  ) {
    this.tokens = tokens;
    this.dispatcher = dispatcher;
  }

  async call(
    origin: string,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body: unknown,
    options: { agent?: string; integrator?: boolean; signal?: AbortSignal } = {},
  ): Promise<Answer> {
    const token = options.integrator ? this.tokens.integratorToken : this.tokens.agentToken;
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    };
    if (options.agent) headers['x-agent-id'] = options.agent;
    const answer = await request(`${origin}/api/v1${path}`, {
      method,
      headers,
      body: JSON.stringify(body),
      dispatcher: this.dispatcher,
      signal: options.signal,
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, body: text ? JSON.parse(text) : undefined };
  }

  /** A new agent registered through `origin`, serving `route` on the printer `null`. */
  async agent(origin: string, route: string): Promise<string> {
    const uuid = randomUUID();
    const registered = await this.call(
      origin,
      'POST',
      '/printing/register',
      { uuid, name: 'bench', hostname: 'bench', platform: 'linux', version: '0', printers: [] },
      { agent: uuid },
    );
    if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
    const routes = await this.call(
      origin,
      'PUT',
      '/printing/routes',
      { routes: [{ name: route, printer: 'null' }] },
      { agent: uuid },
    );
    if (routes.status !== 200) throw new Error(`routes: ${routes.status}`);
    return uuid;
  }

  /** A small text job on `route`, created through `origin`; its id. */
  async createJob(origin: string, route: string, n: number): Promise<number> {
    const answer = await this.call(
      origin,
      'POST',
      '/printing/jobs',
      {
        route,
        content_type: 'text/plain',
        content_base64: Buffer.from(`receipt ${n}\n`).toString('base64'),
      },
      { integrator: true },
    );
    if (answer.status !== 201) throw new Error(`create: ${answer.status}`);
    return answer.body.data.id as number;
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** The value at fraction `p` of sorted numbers. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
