import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRequest, consoleUser, signIn } from '../helpers/console.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { receiptSource } from '../templates/helpers.ts';

/**
 * Templates by console role, as the server holds them (whatever the page shows): a manager
 * reads, writes and previews drafts; staff read and preview the saved templates, and can
 * neither change one nor render a draft.
 */
describe.each(databaseKinds)('templates by console role on %s', (kind) => {
  let server: TestServer;
  let manager: string;
  let staff: string;
  let id: number;
  beforeAll(async () => {
    server = await startTestServerOn(kind);
    const company = await server.createCompany('Roles shop');
    manager = await signIn(server, await consoleUser(server, company, 'manager'));
    staff = await signIn(server, await consoleUser(server, company, 'staff'));
    const made = await consoleRequest(server, 'POST', '/printing/templates', {
      cookie: manager,
      body: { name: 'receipt', kind: 'receipt', source: receiptSource, sample_data: { shop: 'S' } },
    });
    expect(made.status).toBe(201);
    id = made.body.data.id;
  });
  afterAll(() => server.close());

  const preview = (cookie: string, body: Record<string, unknown>) =>
    consoleRequest(server, 'POST', `/printing/templates/${id}/preview`, { cookie, body });

  it('lets a manager change a template and preview a draft', async () => {
    const update = await consoleRequest(server, 'PATCH', `/printing/templates/${id}`, {
      cookie: manager,
      body: { source: `${receiptSource}\nThanks` },
    });
    expect(update.status).toBe(200);
    expect(update.body.data.version).toBe(2);
    expect((await preview(manager, { format: 'text', source: 'Draft' })).status).toBe(200);
  });

  it('lets staff read and preview, and refuses them changes and drafts', async () => {
    const list = await consoleRequest(server, 'GET', '/printing/templates', { cookie: staff });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect((await preview(staff, { format: 'text' })).status).toBe(200);
    expect((await preview(staff, { format: 'text', source: 'Draft' })).status).toBe(403);
    const update = await consoleRequest(server, 'PATCH', `/printing/templates/${id}`, {
      cookie: staff,
      body: { source: 'x' },
    });
    expect(update.status).toBe(403);
    const create = await consoleRequest(server, 'POST', '/printing/templates', {
      cookie: staff,
      body: { name: 'mine', kind: 'receipt', source: 'x' },
    });
    expect(create.status).toBe(403);
  });
});
