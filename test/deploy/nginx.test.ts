import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnShopdesk } from '../agent-e2e/helpers/agent-process.ts';
import { selfSignedCertificate, startNginx, type TestNginx } from '../helpers/nginx.ts';
import { closedPort } from '../helpers/ports.ts';
import { freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { sampleText } from '../printing/helpers.ts';

/**
 * Debian's nginx, with TLS (a certificate made here with openssl), in front of two
 * instances on one PostgreSQL database, as docs/deploy.md deploys them. The nginx
 * configuration is the one docs/deploy.md shows, read from that file, with only its ports,
 * certificate paths and upstream addresses replaced; nginx runs as a process of this test
 * (test/helpers/nginx.ts), on a config file of its own in a temporary folder.
 */

const root = join(import.meta.dirname, '../..');

/** The block of docs/deploy.md after its marker, as the operator copies it. */
function documentedConfig(): string {
  const text = readFileSync(join(root, 'docs/deploy.md'), 'utf8');
  const match = /<!-- deploy-nginx-config[^>]*-->\n```nginx\n([\s\S]*?)\n```/.exec(text);
  if (!match) throw new Error('docs/deploy.md has no nginx block after its marker');
  return match[1]!;
}

/** Replaces `from` (which must occur exactly `times` times) with `to`. */
function replaceExactly(text: string, from: RegExp, to: (index: number) => string, times: number) {
  let index = 0;
  const out = text.replace(from, () => to(index++));
  if (index !== times)
    throw new Error(`expected ${times} × ${from} in the docs config, got ${index}`);
  return out;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by path.
  body: any;
  text: string;
}

describe('nginx with TLS in front of two instances on PostgreSQL', () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let one: TestServer;
  let two: TestServer;
  let nginx: TestNginx | undefined;
  let publicUrl: string;
  let ca: Buffer;
  let admin: string;
  let company: number;

  /** A request to nginx over TLS, trusting the test's certificate only. */
  const call = (
    method: string,
    path: string,
    options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    new Promise<Reply>((resolve, reject) => {
      const url = new URL(`${publicUrl}/api/v1${path}`);
      const body = options.body === undefined ? undefined : JSON.stringify(options.body);
      const outgoing = httpsRequest(
        url,
        {
          method,
          ca,
          // The certificate is checked against the address connected to, not against a
          // spoofed Host header the test sends.
          checkServerIdentity: (_host, cert) => checkServerIdentity(url.hostname, cert),
          headers: {
            accept: 'application/json',
            ...(options.token && { authorization: `Bearer ${options.token}` }),
            ...(body && { 'content-type': 'application/json' }),
            ...options.headers,
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text,
              body:
                text && /json/.test(response.headers['content-type'] ?? '')
                  ? JSON.parse(text)
                  : text,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopdesk-nginx-'));
    const port = await closedPort();
    const redirectPort = await closedPort();
    publicUrl = `https://127.0.0.1:${port}`;
    // A self-signed certificate for the address the agent and the test connect to.
    const certificate = await selfSignedCertificate(dir);
    ca = readFileSync(certificate.cert);

    database = await freshDatabase();
    const target = { kind: 'postgres', url: database.url } as const;
    const config = { publicUrl, trustProxy: true };
    [one, two] = await Promise.all([
      startTestServer({ database: target, config }),
      startTestServer({ database: target, config }),
    ]);
    company = await one.createCompany();
    admin = await one.token(company, '*');

    const upstreams = [one, two].map((server) => new URL(server.url).host);
    let site = documentedConfig();
    site = replaceExactly(site, /listen 80;/g, () => `listen 127.0.0.1:${redirectPort};`, 1);
    site = replaceExactly(site, /listen 443 ssl;/g, () => `listen 127.0.0.1:${port} ssl;`, 1);
    site = replaceExactly(
      site,
      /\/etc\/ssl\/certs\/shop\.example\.com\.pem/g,
      () => certificate.cert,
      1,
    );
    site = replaceExactly(
      site,
      /\/etc\/ssl\/private\/shop\.example\.com\.key/g,
      () => certificate.key,
      1,
    );
    // The three upstream lines become the two instances (the third is dropped).
    site = replaceExactly(
      site,
      /^( *)server 127\.0\.0\.1:808\d( [^;]*);\n/gm,
      (index) =>
        index < 2 ? `    server ${upstreams[index]} max_fails=1 fail_timeout=10s;\n` : '',
      3,
    );
    nginx = await startNginx(dir, site);
    await waitFor(
      'nginx answering',
      async () =>
        (await call('GET', '/health').catch(() => undefined))?.status === 200 || undefined,
      10_000,
    );
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await one?.close();
    await two?.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Location and page links carry the public https URL; a spoofed Host never appears', async () => {
    const spoofed = { host: 'evil.example', 'x-forwarded-host': 'evil.example' };
    const ids: number[] = [];
    for (const name of ['Ada', 'Grace', 'Edsger']) {
      const created = await call('POST', '/customers', {
        token: admin,
        body: { name, type: 'F' },
        headers: spoofed,
      });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.location).toBe(
        `${publicUrl}/api/v1/customers/${created.body.data.id}`,
      );
      ids.push(created.body.data.id);
    }
    const page = await call('GET', '/customers?per_page=1&page=2', {
      token: admin,
      headers: spoofed,
    });
    expect(page.status).toBe(200);
    expect(page.body.links).toEqual({
      first: `${publicUrl}/api/v1/customers?per_page=1&page=1`,
      last: `${publicUrl}/api/v1/customers?per_page=1&page=3`,
      prev: `${publicUrl}/api/v1/customers?per_page=1&page=1`,
      next: `${publicUrl}/api/v1/customers?per_page=1&page=3`,
    });
    expect(page.body.meta.path).toBe(`${publicUrl}/api/v1/customers`);
    expect(page.text).not.toContain('evil');
    // Spread over both instances: each sees the customers made through the other.
    for (const server of [one, two]) {
      const list = await server.request('GET', '/customers', { token: admin });
      expect(list.body.data.map((row: { id: number }) => row.id).sort()).toEqual(ids.sort());
    }
    const log = readFileSync(join(dir, 'access.log'), 'utf8');
    expect(log).toContain('POST /api/v1/customers');
  });

  it('the headless agent prints through the https URL end to end (trusting the certificate by NODE_EXTRA_CA_CERTS)', async () => {
    const agentToken = await one.token(company, ['printing.agent']);
    const outDir = join(dir, 'printed');
    const agent = spawnShopdesk(
      [
        'agent',
        '--server',
        publicUrl,
        '--token',
        agentToken,
        '--route',
        `labels=folder:${outDir}`,
        '--state-dir',
        join(dir, 'agent-state'),
      ],
      { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
    );
    try {
      // The agent registers its route through nginx; a job made before would wait for it.
      await waitFor(
        'the agent registered',
        async () => {
          const agents = await call('GET', '/printing/agents', { token: admin });
          return agents.body?.data?.length > 0 || undefined;
        },
        30_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; stderr: ${agent.stderr()}`);
      });
      const ids: number[] = [];
      for (const title of ['first', 'second']) {
        const job = await call('POST', '/printing/jobs', {
          token: admin,
          body: { route: 'labels', content_type: 'text/plain', content_base64: sampleText, title },
        });
        expect(job.status).toBe(201);
        ids.push(job.body.data.id);
      }
      await waitFor(
        'a printed line per job',
        () =>
          ids.every((id) =>
            new RegExp(`^job ${id} route=labels .*printed`, 'm').test(agent.stdout()),
          ) || undefined,
        40_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; stdout: ${agent.stdout()}; stderr: ${agent.stderr()}`);
      });
      expect(readdirSync(outDir).sort()).toEqual([`${ids[0]}-first.txt`, `${ids[1]}-second.txt`]);
      // The agent logs "printed" when the spooler took the job; its confirm follows from its
      // outbox, a moment later.
      const statuses = async () =>
        Promise.all(
          ids.map(
            async (id) =>
              (await call('GET', `/printing/jobs/${id}`, { token: admin })).body.data.status,
          ),
        );
      await waitFor(
        'both confirmed',
        async () => (await statuses()).every((status) => status === 'printed') || undefined,
        10_000,
      ).catch(() => {});
      expect(await statuses()).toEqual(['printed', 'printed']);
    } finally {
      expect(await agent.kill('SIGTERM')).toBe(0);
    }
  }, 90_000);
});
