import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('the server answers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('GET /health answers 200 without a token', async () => {
    const answer = await server.request('GET', '/health');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('ok');
  });

  it('GET /me names the company and permissions, never the secret', async () => {
    const company = await server.createCompany('Acme');
    const token = await server.token(company, ['customers.read']);
    const answer = await server.request('GET', '/me', { token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.company).toEqual({ id: company, name: 'Acme' });
    expect(answer.body.data.token.permissions).toEqual(['customers.read']);
    expect(JSON.stringify(answer.body)).not.toContain(token);
  });
});
