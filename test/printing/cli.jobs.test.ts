import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { shopdesk, shopdeskProcess } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { integratorToken, registerAgent } from './helpers.ts';

describe('shopdesk job create', () => {
  let server: TestServer;
  let company: number;
  let reader: string;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany();
    reader = await integratorToken(server, company, ['printing.jobs.read']);
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-cli-jobs-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['receipt.txt', 'text/plain'],
    ['invoice.pdf', 'application/pdf'],
    ['label.zpl', 'application/vnd.zebra.zpl'],
    ['ticket.escpos', 'application/vnd.escpos'],
    ['ticket.bin', 'application/vnd.escpos'],
  ])('queues %s as %s and prints only the job id', async (name, type) => {
    const file = join(dir, name);
    // A PDF must be one (it starts with %PDF-); the other types are not checked.
    const content = `${type === 'application/pdf' ? '%PDF-1.4\n' : ''}content of ${name}`;
    writeFileSync(file, content);
    const result = await shopdesk(
      'job',
      'create',
      '--company',
      String(company),
      '--route',
      'receipts',
      '--file',
      file,
      '--copies',
      '3',
      '--title',
      'From the CLI',
      '--db',
      server.dbFile,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\n$/);
    const id = Number(result.stdout.trim());
    const job = await server.request('GET', `/printing/jobs/${id}`, { token: reader });
    expect(job.status).toBe(200);
    expect(job.body.data).toMatchObject({
      status: 'queued',
      route: 'receipts',
      content_type: type,
      copies: 3,
      title: 'From the CLI',
      size: Buffer.byteLength(content),
    });
  });

  it('a job queued by the CLI reaches an agent already waiting on the server', async () => {
    const agent = await registerAgent(server, company, ['from-cli']);
    const waiting = agent.next(20);
    await waitFor('the agent waiting', () => server.agentsWaiting());
    const file = join(dir, 'wake.txt');
    writeFileSync(file, 'wake up');
    const sent = performance.now();
    const result = await shopdeskProcess(
      {},
      'job',
      'create',
      '--company',
      String(company),
      '--route',
      'from-cli',
      '--file',
      file,
      '--db',
      server.dbFile,
    );
    const answer = await waiting;
    console.log(
      `CLI job reached the waiting agent ${(performance.now() - sent).toFixed(0)} ms after the CLI started (process start included)`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data.id).toBe(Number(result.stdout.trim()));
  });

  it('--content-type wins over the extension', async () => {
    const file = join(dir, 'raw.dat');
    writeFileSync(file, '^XA^XZ');
    const result = await shopdesk(
      'job',
      'create',
      '--company',
      String(company),
      '--route',
      'labels',
      '--file',
      file,
      '--content-type',
      'application/vnd.zebra.zpl',
      '--db',
      server.dbFile,
    );
    expect(result.code).toBe(0);
    const job = await server.request('GET', `/printing/jobs/${result.stdout.trim()}`, {
      token: reader,
    });
    expect(job.body.data.content_type).toBe('application/vnd.zebra.zpl');
  });

  describe.each([
    ['an unknown extension without --content-type', ['--file', 'FILE.xyz'], /content type/],
    ['a missing file', ['--file', 'MISSING.txt'], /cannot read/],
    ['an empty file', ['--file', 'EMPTY.txt'], /empty/],
    ['a bad route', ['--route', 'Not Valid'], /--route/],
    ['too many copies', ['--copies', '100'], /--copies/],
    ['an unknown content type', ['--content-type', 'image/png'], /--content-type/],
    ['an unknown company', ['--company', '999999'], /no company/],
    ['a company id past the largest id', ['--company', '2147483648'], /--company/],
    ['a .pdf that is no PDF', ['--file', 'fake.pdf'], /not a PDF/],
  ])('refuses %s', (_what, override, message) => {
    it('with one line on stderr, exit code 2 and nothing queued', async () => {
      writeFileSync(join(dir, 'FILE.xyz'), 'x');
      writeFileSync(join(dir, 'fake.pdf'), 'PK\u0003\u0004 a zip file');
      writeFileSync(join(dir, 'EMPTY.txt'), '');
      writeFileSync(join(dir, 'ok.txt'), 'ok');
      const options: Record<string, string> = {
        '--company': String(company),
        '--route': 'receipts',
        '--file': join(dir, 'ok.txt'),
      };
      const [flag, value] = override as [string, string];
      options[flag] = flag === '--file' ? join(dir, value) : value;
      const before = await server.request('GET', '/printing/history', { token: reader });
      const result = await shopdesk(
        'job',
        'create',
        ...Object.entries(options).flat(),
        '--db',
        server.dbFile,
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      const after = await server.request('GET', '/printing/history', { token: reader });
      expect(after.body.meta.total).toBe(before.body.meta.total);
    });
  });
});
