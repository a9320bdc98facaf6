import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ok, tokenByCli } from '../helpers/shopdesk-cli.ts';
import { waitFor } from '../helpers/wait.ts';
import { type ShopdeskProcess, spawnAgent, spawnShopdesk } from './helpers/agent-process.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * `shopdesk serve` and `shopdesk agent` as processes; company, token and job create through
 * the same `runShopdesk` in the test's process (test/helpers/shopdesk-cli.ts): only their
 * output is read, and the test's process is another one than the server's, as the
 * cross-process watch below needs.
 */
describe('shopdesk agent (headless) against shopdesk serve', () => {
  it('prints jobs queued by `shopdesk job create` into its folder: route, a line each, and exits 0 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shopdesk-e2e-cli-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const db = join(dir, 'shop.sqlite');
    const outDir = join(dir, 'labels-out');
    const running: ShopdeskProcess[] = [];
    cleanups.push(async () => {
      for (const child of running) await child.kill('SIGKILL');
    });

    const company = (await ok('company', 'create', '--name', 'CLI shop', '--db', db)).trim();
    const agentToken = await tokenByCli(company, 'printing.agent', '--db', db);
    const readToken = await tokenByCli(company, 'printing.jobs.read', '--db', db);

    const serve = spawnShopdesk(['serve', '--port', '0', '--db', db]);
    running.push(serve);
    const url = (
      await waitFor(
        'the listening URL on stdout',
        () => serve.stdout().match(/https?:\/\/\S+/)?.[0],
        20_000,
      )
    ).replace(/\/+$/, '');

    const agent = spawnAgent(
      { url: url, token: agentToken },
      `labels=folder:${outDir}`,
      join(dir, 'agent-state'),
    );
    running.push(agent);

    const ids: string[] = [];
    for (const [index, text] of ['first label', 'second label', 'third label'].entries()) {
      const file = join(dir, `label-${index}.txt`);
      await writeFile(file, text);
      const id = (
        await ok(
          'job',
          'create',
          '--company',
          company,
          '--route',
          'labels',
          '--file',
          file,
          '--title',
          `L${index}`,
          '--db',
          db,
        )
      ).trim();
      expect(id).toMatch(/^\d+$/);
      ids.push(id);
    }

    // The agent was given the URL exactly as `serve` printed it (with /api/v1).
    // `job create` wrote to the database from another process: the server's cross-process
    // watch must wake the agent's long-poll (or the next poll picks the jobs up).
    await waitFor(
      'a printed line per job on stdout',
      () =>
        ids.every((id) =>
          new RegExp(`^job ${id} route=labels .*printed`, 'm').test(agent.stdout()),
        ),
      40_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; stdout: ${agent.stdout()}; stderr: ${agent.stderr()}`);
    });
    const lines = agent.stdout().trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines)
      expect(line).toMatch(/^job \d+ route=labels printer=folder:\S+ printed \d+ ms$/);

    const files = (await readdir(outDir)).sort();
    expect(files).toEqual([`${ids[0]}-L0.txt`, `${ids[1]}-L1.txt`, `${ids[2]}-L2.txt`]);
    expect(await readFile(join(outDir, files[1]!), 'utf8')).toBe('second label');

    for (const id of ids) {
      const response = await fetch(`${new URL(url).origin}/api/v1/printing/jobs/${id}`, {
        headers: { authorization: `Bearer ${readToken}`, accept: 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { status: string } }).data.status).toBe('printed');
    }

    expect(await agent.kill('SIGTERM')).toBe(0);
    expect(agent.stderr()).toContain('stopping (SIGTERM)');
    expect(await serve.kill('SIGTERM')).toBe(0);
  }, 90_000);

  it.each([
    [['--server', 'not-a-url', '--token', 't', '--route', 'a=PDF'], '--server must be a URL'],
    [['--server', 'http://127.0.0.1:9', '--token', 't'], 'at least one --route'],
  ])('refuses bad arguments %j with one line on stderr and exit code 2', async (args, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'shopdesk-e2e-usage-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const stateDir = join(dir, 'agent-state');
    const agent = spawnShopdesk(['agent', ...args, '--state-dir', stateDir]);
    cleanups.push(() => agent.kill('SIGKILL'));
    expect(await agent.exited).toBe(2);
    expect(agent.stderr()).toMatch(/^error: [^\n]+\n$/);
    expect(agent.stderr()).toContain(message);
    expect(agent.stdout()).toBe('');
    // Refused before anything is written.
    await expect(readdir(stateDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
