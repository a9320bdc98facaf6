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
      ]),
    );
  });
});
