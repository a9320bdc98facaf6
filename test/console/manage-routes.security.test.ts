import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRequest, consoleUser, ensureConsoleBuilt, signIn } from '../helpers/console.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent } from '../printing/helpers.ts';

/**
 * Who may rename and remove agents, change roles and reset passwords through the console's
 * own routes, and what they refuse whoever asks (the flows themselves:
 * console-manage.browser.test.ts).
 */
describe.each(databaseKinds)("the console's manage routes on %s", (kind) => {
  let server: TestServer;
  let companyId: number;
  let owner: string;
  let ownerId: number;
  let manager: string;
  let staff: string;
  let staffId: number;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    server = await startTestServerOn(kind);
    companyId = await server.createCompany('Rules Co');
    const ownerUser = await consoleUser(server, companyId, 'owner');
    ownerId = ownerUser.id;
    owner = await signIn(server, ownerUser);
    manager = await signIn(server, await consoleUser(server, companyId, 'manager'));
    const staffUser = await consoleUser(server, companyId, 'staff');
    staffId = staffUser.id;
    staff = await signIn(server, staffUser);
  });
  afterAll(() => server?.close());

  const call = (cookie: string, method: string, path: string, body?: unknown) =>
    consoleRequest(server, method, path, { cookie, ...(body !== undefined && { body }) });

  it('lets staff neither rename nor remove an agent (403), and managers do', async () => {
    const agent = await registerAgent(server, companyId, []);
    const path = `/console/agents/${agent.uuid}`;
    expect((await call(staff, 'PATCH', path, { name: 'Front till' })).status).toBe(403);
    expect((await call(staff, 'DELETE', path)).status).toBe(403);
    expect((await call(manager, 'PATCH', path, { name: 'Front till' })).status).toBe(204);
  });

  it('refuses to remove an agent that is online (409), and removes it once it is offline', async () => {
    const agent = await registerAgent(server, companyId, []);
    const path = `/console/agents/${agent.uuid}`;
    const online = await call(owner, 'DELETE', path);
    expect(online.status).toBe(409);
    expect(online.body.message).toContain('is online: stop it on its computer first');
    expect((await agent.call('POST', '/printing/offline')).status).toBe(204);
    const removed = await call(owner, 'DELETE', path);
    expect(removed.status).toBe(200);
    expect((await call(owner, 'DELETE', path)).status).toBe(404);
  });

  it("answers 404 for another company's agent", async () => {
    const other = await server.createCompany('Other Co');
    const agent = await registerAgent(server, other, []);
    const path = `/console/agents/${agent.uuid}`;
    expect((await call(owner, 'PATCH', path, { name: 'Mine now' })).status).toBe(404);
    expect((await call(owner, 'DELETE', path)).status).toBe(404);
  });

  it('lets only owners change roles and reset passwords (a manager: 403)', async () => {
    const role = await call(manager, 'PATCH', `/console/users/${staffId}`, { role: 'owner' });
    expect(role.status).toBe(403);
    const reset = await call(manager, 'POST', `/console/users/${staffId}/password-reset`);
    expect(reset.status).toBe(403);
  });

  it('keeps the last owner an owner (409)', async () => {
    const answer = await call(owner, 'PATCH', `/console/users/${ownerId}`, { role: 'manager' });
    expect(answer.status).toBe(409);
    expect(answer.body.message).toBe(
      'The last owner keeps the role: make someone else owner first.',
    );
  });

  it('ends the sessions of a person whose password is reset, and answers a one-time link', async () => {
    const answer = await call(owner, 'POST', `/console/users/${staffId}/password-reset`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.setup_url).toMatch(/\/console\/set-password#code=[\w-]{43}$/);
    expect((await call(staff, 'GET', '/console/session')).status).toBe(401);
  });
});
