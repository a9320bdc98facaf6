import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleFile, defaultOutDir, inputsFile } from '../../agent/headless/bundle.ts';
import { startRealAgentTestServer } from '../helpers/real-agent-server.ts';
import { waitFor } from '../helpers/wait.ts';
import { spawnShopdesk } from './helpers/agent-process.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const inputsOf = async (): Promise<Record<string, [number, number]>> =>
  JSON.parse(await readFile(join(defaultOutDir, inputsFile), 'utf8')).inputs;

/**
 * `shopdesk agent` as shipped: bin/shopdesk.js builds the esbuild bundle of the headless agent
 * into node_modules/.cache/shopdesk-agent and becomes `node <flags> agent.mjs agent …`
 * (docs/agent.md, "Footprint"). Linux: the process's command line is read from /proc.
 */
describe('the headless agent bundle (shopdesk agent)', () => {
  it('starts from the bundle, with its flags and malloc arenas, and prints a job queued on the real server', async () => {
    const server = await startRealAgentTestServer();
    cleanups.push(() => server.close());
    const dir = await mkdtemp(join(tmpdir(), 'shopdesk-e2e-bundle-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const out = join(dir, 'out');
    const agentArgs = [
      'agent',
      '--server',
      server.url,
      '--route',
      `labels=folder:${out}`,
      '--state-dir',
      join(dir, 'state'),
    ];
    const agent = spawnShopdesk(agentArgs, { SHOPDESK_AGENT_TOKEN: server.token });
    cleanups.push(() => agent.kill('SIGKILL'));

    await waitFor(
      'the agent to start',
      () => agent.stderr().includes(' starting; server '),
      60_000,
    );
    const cmdline = (await readFile(`/proc/${agent.child.pid}/cmdline`, 'utf8')).split('\0');
    expect(cmdline).toContain(join(defaultOutDir, bundleFile));
    expect(cmdline).toContain('--max-semi-space-size=1');
    expect(cmdline).toContain('--v8-pool-size=1');
    const environ = (await readFile(`/proc/${agent.child.pid}/environ`, 'utf8')).split('\0');
    expect(environ).toContain('MALLOC_ARENA_MAX=2');
    expect(cmdline.slice(cmdline.indexOf(join(defaultOutDir, bundleFile)) + 1, -1)).toEqual(
      agentArgs,
    );

    const job = await server.createJob({
      route: 'labels',
      title: 'bundled',
      content: 'label from the bundle',
    });
    await waitFor(
      'the printed line',
      () =>
        new RegExp(`^job ${job.id} route=labels printer=folder:\\S+ printed \\d+ ms$`, 'm').test(
          agent.stdout(),
        ),
      30_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; stdout: ${agent.stdout()}; stderr: ${agent.stderr()}`);
    });
    const files = await readdir(out);
    expect(files).toEqual([`${job.id}-bundled.txt`]);
    expect(await readFile(join(out, files[0]!), 'utf8')).toBe('label from the bundle');
    await waitFor(
      'the job printed on the server',
      async () => (await server.job(job.id)).status === 'printed',
    );
    expect(await agent.kill('SIGTERM')).toBe(0);
  }, 90_000);

  it("holds the agent and what it uses: no server code, no HTTP client library (Node's own)", async () => {
    // Built (or found fresh) by the executable; `--help` ends before anything runs.
    const help = spawnShopdesk(['agent', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain('--route <NAME=PRINTER>');
    const inputs = Object.keys(await inputsOf());
    expect(inputs.some((path) => path.endsWith('/agent/core/cli.ts'))).toBe(true);
    expect(inputs.some((path) => path.endsWith('/agent/core/http-request.ts'))).toBe(true);
    expect(inputs.filter((path) => path.includes('/server/'))).toEqual([]);
    expect(inputs.filter((path) => path.includes('/node_modules/undici/'))).toEqual([]);
  }, 60_000);

  it('is built again when one of its inputs changed', async () => {
    const warm = spawnShopdesk(['agent', '--help']);
    expect(await warm.exited).toBe(0);
    const inputs = await inputsOf();
    const cli = Object.keys(inputs).find((path) => path.endsWith('/agent/core/cli.ts'))!;
    // As if cli.ts had been edited since the build: the list says another time.
    inputs[cli] = [inputs[cli]![0], inputs[cli]![1] - 1000];
    await writeFile(join(defaultOutDir, inputsFile), JSON.stringify({ inputs }));
    const run = spawnShopdesk(['agent', '--help']);
    expect(await run.exited).toBe(0);
    const rebuilt = await inputsOf();
    expect(rebuilt[cli]).not.toEqual(inputs[cli]);
    expect(JSON.parse(await readFile(join(defaultOutDir, inputsFile), 'utf8')).esbuild).toMatch(
      /^\d+\.\d+\.\d+$/,
    );
  }, 60_000);
});
