import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('the OpenAPI document lists the print queue', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('with every route of the print-agent group and the job routes', async () => {
    const answer = await server.request('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    const paths = answer.body.paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/v1/printing/register',
        'POST /api/v1/printing/heartbeat',
        'GET /api/v1/printing/config',
        'PUT /api/v1/printing/routes',
        'POST /api/v1/printing/jobs',
        'POST /api/v1/printing/jobs/next',
        'GET /api/v1/printing/history',
        'GET /api/v1/printing/jobs/{job}',
        'POST /api/v1/printing/jobs/{job}/retry',
        'POST /api/v1/printing/jobs/{job}/reprint',
        'POST /api/v1/printing/jobs/{job}/confirm',
        'POST /api/v1/printing/jobs/{job}/error',
        'POST /api/v1/printing/jobs/{job}/release',
        'POST /api/v1/printing/offline',
      ]),
    );
  });

  it('shows why a job waits (wait_reason) in the job record, and the routes a claim may name', async () => {
    const answer = await server.request('GET', '/openapi.json');
    const document = JSON.stringify(answer.body);
    for (const code of ['printer_out_of_paper', 'no_agent_online', 'printer_misconfigured']) {
      expect(document).toContain(code);
    }
    const paths = answer.body.paths as Record<string, Record<string, unknown>>;
    expect(JSON.stringify(paths['/api/v1/printing/jobs/next'])).toContain('routes');
    expect(JSON.stringify(paths['/api/v1/printing/jobs/{job}'])).toContain('wait_reason');
  });
});
