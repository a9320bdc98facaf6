import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRequest, consoleUser, ensureConsoleBuilt, signIn } from '../helpers/console.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';

/**
 * A person edits an agent's routes in the console (`PUT /console/agents/{uuid}/routes`):
 * who may, what is checked, and the routes version the agent's heartbeat then reads.
 */
describe.each(databaseKinds)("the console's route editing on %s", (kind) => {
  let server: TestServer;
  let companyId: number;
  let agent: TestAgent;
  let manager: string;
  let staff: string;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    server = await startTestServerOn(kind);
    companyId = await server.createCompany('Routes Co');
    agent = await registerAgent(server, companyId, ['receipts']);
    manager = await signIn(server, await consoleUser(server, companyId, 'manager'));
    staff = await signIn(server, await consoleUser(server, companyId, 'staff'));
  });
  afterAll(() => server?.close());

  const put = (cookie: string, uuid: string, routes: unknown[]) =>
    consoleRequest(server, 'PUT', `/console/agents/${uuid}/routes`, {
      cookie,
      body: { routes },
    });
  const beat = async () => {
    const answer = await agent.call('POST', '/printing/heartbeat', { held_job_ids: [] });
    return answer.body.data.routes_version as number;
  };

  it('saves the routes, moves the version on, and the heartbeat and config show it', async () => {
    const before = await beat();
    expect(before).toBeGreaterThan(0); // the agent's own PUT counted
    const live = () => server.app.services.live.current(companyId);
    const shown = await live();
    const profile = { language: 'escpos', width_mm: 80 };
    const answer = await put(manager, agent.uuid, [
      { name: 'receipts', printer: 'EPSON', enabled: false },
      { name: 'labels', printer: 'Zebra', profile },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.data.routes_version).toBe(before + 1);
    expect(answer.body.data.routes).toEqual([
      { name: 'receipts', printer: 'EPSON', enabled: false, options: {} },
      { name: 'labels', printer: 'Zebra', enabled: true, options: {}, profile },
    ]);
    expect(await beat()).toBe(before + 1);
    // The console's live pages (the Agents page of everyone signed in) read again.
    expect(await live()).not.toBe(shown);
    const config = await agent.call('GET', '/printing/config');
    expect(config.body.data.routes_version).toBe(before + 1);
    expect(config.body.data.routes.map((r: { name: string }) => r.name)).toEqual([
      'receipts',
      'labels',
    ]);
    // The agent's own save moves it on too, and tells the agent the number.
    const own = await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'receipts', printer: 'EPSON' }],
    });
    expect(own.body.data.routes_version).toBe(before + 2);
  });

  it('is for owners and managers: staff, a bearer token and no session are refused', async () => {
    const routes = [{ name: 'receipts', printer: 'EPSON' }];
    expect((await put(staff, agent.uuid, routes)).status).toBe(403);
    expect((await put('', agent.uuid, routes)).status).toBe(401);
    const token = await server.token(companyId, '*');
    const bearer = await server.request('PUT', `/console/agents/${agent.uuid}/routes`, {
      token,
      body: { routes },
    });
    expect(bearer.status).toBe(403);
    const noOrigin = await consoleRequest(server, 'PUT', `/console/agents/${agent.uuid}/routes`, {
      cookie: manager,
      body: { routes },
      origin: null,
    });
    expect(noOrigin.status).toBe(403);
  });

  it("answers 404 for another company's agent or an unknown one", async () => {
    const other = await server.createCompany('Other Co');
    const theirs = await registerAgent(server, other, ['receipts']);
    const routes = [{ name: 'receipts', printer: 'EPSON' }];
    expect((await put(manager, theirs.uuid, routes)).status).toBe(404);
    expect((await put(manager, randomUUID(), routes)).status).toBe(404);
  });

  it("validates as the agent's own PUT, and refuses a folder printer it was not given", async () => {
    const version = await beat();
    const duplicate = await put(manager, agent.uuid, [
      { name: 'receipts', printer: 'EPSON' },
      { name: 'receipts', printer: 'Zebra' },
    ]);
    expect(duplicate.status).toBe(422);
    expect(Object.keys(duplicate.body.errors)).toEqual(['routes.1.name']);
    const badName = await put(manager, agent.uuid, [{ name: 'Bad Name', printer: 'EPSON' }]);
    expect(badName.status).toBe(422);
    const empty = await put(manager, agent.uuid, [{ name: 'receipts', printer: '' }]);
    expect(empty.status).toBe(422);
    for (const printer of ['folder:/etc/cron.d', 'file:/tmp/x', 'C:\\out']) {
      const local = await put(manager, agent.uuid, [{ name: 'receipts', printer }]);
      expect(local.status).toBe(422);
      expect(local.body.errors['routes.0.printer'][0]).toMatch(/not a printer of the agent's/);
    }
    expect(await beat()).toBe(version); // nothing refused was saved
    // A folder route the agent itself saved may be kept as it is.
    await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'drop', printer: 'folder:/srv/drop' }],
    });
    const kept = await put(manager, agent.uuid, [
      { name: 'drop', printer: 'folder:/srv/drop', enabled: false },
      { name: 'receipts', printer: 'EPSON' },
    ]);
    expect(kept.status).toBe(200);
  });

  it('takes backup printers, and refuses a local one among them that the agent did not have', async () => {
    const saved = await put(manager, agent.uuid, [
      { name: 'receipts', printer: 'EPSON', backup_printers: ['Zebra'] },
    ]);
    expect(saved.status).toBe(200);
    expect(saved.body.data.routes[0].backup_printers).toEqual(['Zebra']);
    const local = await put(manager, agent.uuid, [
      { name: 'receipts', printer: 'EPSON', backup_printers: ['Zebra', 'socket://10.0.0.9'] },
    ]);
    expect(local.status).toBe(422);
    expect(Object.keys(local.body.errors)).toEqual(['routes.0.backup_printers.1']);
    // One the agent itself saved on the route may stay, moved to another place in the list.
    await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'drop', printer: 'folder:/srv/drop', backup_printers: ['EPSON'] }],
    });
    const reordered = await put(manager, agent.uuid, [
      { name: 'drop', printer: 'EPSON', backup_printers: ['folder:/srv/drop'] },
    ]);
    expect(reordered.status).toBe(200);
  });
});
