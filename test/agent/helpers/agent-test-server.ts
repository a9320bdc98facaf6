import type { ServerConfig } from '../../../server/config.ts';
import type { AgentListing, JobRecord } from '../../../shared/printing.ts';
import { type FaultProxy, startFaultProxy } from '../../helpers/fault-proxy.ts';
import {
  type RealAgentTestServer,
  startRealAgentTestServer,
} from '../../helpers/real-agent-server.ts';

/**
 * What the agent's tests run against: the real server in the test's process, on a fresh
 * SQLite file, behind a fault proxy (test/helpers/fault-proxy.ts) that records every request
 * and produces, on cue, what the real server cannot: injected answers, cut connections, a
 * server gone and back. The agent is given the proxy's address.
 */
export interface AgentTestServer {
  /** The proxy's origin: the agent's server. */
  url: string;
  /** A token with `printing.agent`. */
  token: string;
  proxy: FaultProxy;
  server: RealAgentTestServer;
  /** Queues a job as an integrator would (`POST /printing/jobs`); a PDF when it starts %PDF-. */
  createJob: RealAgentTestServer['createJob'];
  /** `GET /printing/jobs/{id}`. */
  job(id: number): Promise<JobRecord>;
  /** The agent as the server keeps it, with its routes (`GET /printing/agents/{uuid}`). */
  agent(uuid: string): Promise<AgentListing>;
  /** How many agents the company has. */
  agentCount(): Promise<number>;
  /** Lets every lease lapse (the server's clock moves past it) and sweeps, as its timer would. */
  expireLeases(): Promise<void>;
  close(): Promise<void>;
}

export async function startAgentTestServer(
  config: Partial<ServerConfig> = {},
): Promise<AgentTestServer> {
  // A heartbeat a second, so that the tests that wait for one wait little.
  const settings = { heartbeatSeconds: 1, longPollWaitSeconds: 10, ...config };
  const server = await startRealAgentTestServer(settings);
  const proxy = await startFaultProxy(server.url);
  return {
    url: proxy.url,
    token: server.token,
    proxy,
    server,
    createJob: ({ content, ...body }) =>
      server.createJob({
        content_type:
          Buffer.from(content).subarray(0, 5).toString() === '%PDF-'
            ? 'application/pdf'
            : 'text/plain',
        ...body,
        content,
      }),
    job: (id) => server.job(id),
    async agent(uuid) {
      const answer = await server.request('GET', `/printing/agents/${uuid}`);
      if (answer.status !== 200) throw new Error(`no agent ${uuid}: ${answer.status}`);
      return answer.body.data;
    },
    async agentCount() {
      return (await server.request('GET', '/printing/agents')).body.meta.total;
    },
    async expireLeases() {
      server.clock.advance(((settings.leaseSeconds ?? 120) + 1) * 1000);
      await server.sweep();
    },
    async close() {
      await proxy.close();
      await server.close();
    },
  };
}
