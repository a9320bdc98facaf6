import type { CreateJobBody, JobRecord } from '../../../shared/printing.ts';
import { type PrintQueueStubOptions, startPrintQueueStub } from './print-queue-stub.ts';

/**
 * What an agent end-to-end test needs of a server: where it is, an agent token, a way to
 * queue a job as an integrator would, and a way to read a job back. The stub provides it
 * today; when main has `startTestServer()` (test/helpers/server.ts), an adapter over it
 * provides the same (createJob: `POST /api/v1/printing/jobs` with a `printing.jobs.create`
 * token; job: `GET /api/v1/printing/jobs/{id}`), and tests written against this interface
 * run unchanged against the real server.
 */
export interface AgentTestServer {
  url: string;
  /** A token with `printing.agent`. */
  token: string;
  createJob(
    body: Partial<Omit<CreateJobBody, 'content_base64'>> & {
      route: string;
      content: Buffer | string;
    },
  ): Promise<JobRecord>;
  job(id: number): Promise<JobRecord>;
  close(): Promise<void>;
}

export async function startStubAgentTestServer(
  options: PrintQueueStubOptions = {},
): Promise<AgentTestServer> {
  const stub = await startPrintQueueStub(options);
  return {
    url: stub.url,
    token: stub.token,
    createJob: async (body) => stub.createJob(body),
    job: async (id) => stub.job(id),
    close: () => stub.close(),
  };
}
