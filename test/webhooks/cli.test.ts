import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { scratchDir, shopdesk, shopdeskProcess } from '../helpers/shopdesk-cli.ts';
import { createJob } from '../printing/helpers.ts';
import { startWebhookServer } from './helpers.ts';
import { Receiver } from './receiver.ts';

/**
 * `shopdesk webhook create`, a process of its own beside the running server: it seals the
 * secret with the key beside the database (the server's), and the server's subscription
 * cache sees its write (SQLite's data_version), so the very next event goes out.
 */
describe('shopdesk webhook create', () => {
  let server: TestServer;
  let companyId: number;
  let token: string;
  const receiver = new Receiver();
  const dir = scratchDir();

  beforeAll(async () => {
    server = await startWebhookServer({ webhooks: { pollMs: 100 } });
    companyId = await server.createCompany();
    token = await server.token(companyId, '*');
    await receiver.start();
  });
  afterAll(async () => {
    await server.close();
    await receiver.stop();
  });

  const create = (...args: string[]) =>
    shopdeskProcess(
      {},
      'webhook',
      'create',
      '--db',
      server.dbFile,
      '--company',
      String(companyId),
      ...args,
    );

  // Its refusals need only its output and exit code: the same command in the test's process.
  const refused = (...args: string[]) =>
    shopdesk('webhook', 'create', '--db', server.dbFile, '--company', String(companyId), ...args);

  it('prints the id and the secret, and the running server sends the next event to it', async () => {
    // The server has looked (and cached) that this company takes no event.
    await createJob(server, token);
    const run = await create(
      '--url',
      receiver.url,
      '--events',
      'print_job.created,print_job.printed',
      '--webhooks-allow-http',
      '--webhooks-allow-private',
    );
    expect(run.code, run.stderr).toBe(0);
    const [id, secret] = run.stdout.trim().split('\t');
    expect(Number(id)).toBeGreaterThan(0);
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets.push(secret!);
    const read = await server.request('GET', `/webhooks/${id}`, { token });
    expect(read.body.data.events).toEqual(['print_job.created', 'print_job.printed']);

    const job = await createJob(server, token);
    await receiver.waitFor(1);
    expect(receiver.unverified).toEqual([]);
    expect(receiver.events.map((e) => [e.type, e.data.id])).toEqual([
      ['print_job.created', job.id],
    ]);
  });

  it('writes the events of its own changes, which the server sends (`shopdesk job create`)', async () => {
    const before = receiver.received.length;
    const file = join(dir, 'receipt.txt');
    writeFileSync(file, 'from the command line');
    const run = await shopdeskProcess(
      {},
      'job',
      'create',
      '--db',
      server.dbFile,
      '--company',
      String(companyId),
      '--route',
      'receipts',
      '--file',
      file,
    );
    expect(run.code, run.stderr).toBe(0);
    await receiver.waitFor(before + 1);
    expect(receiver.events.at(-1)).toMatchObject({
      type: 'print_job.created',
      data: { id: Number(run.stdout.trim()) },
    });
  });

  it('issues a token with webhooks.manage (`shopdesk token create`), which the API accepts', async () => {
    const run = await shopdesk(
      'token',
      'create',
      '--db',
      server.dbFile,
      '--company',
      String(companyId),
      '--permissions',
      'webhooks.manage',
    );
    expect(run.code, run.stderr).toBe(0);
    const list = await server.request('GET', '/webhooks', { token: run.stdout.trim() });
    expect(list.status).toBe(200);
  });

  it.each([
    [['--url', 'http://93.184.216.34/', '--events', '*'], 'must be an https:// URL'],
    [['--url', 'https://127.0.0.1/', '--events', '*'], 'loopback address'],
    [['--url', 'https://93.184.216.34/', '--events', 'nope'], '--events must be * or'],
    [['--url', 'nonsense', '--events', '*'], '--url must be a valid URL'],
  ])('refuses %j with a usage error', async (args, message) => {
    const run = await refused(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});
