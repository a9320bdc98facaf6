import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  agentRuntimeOptionsFrom,
  defaultStateDir,
  parseRouteArgument,
  runAgentCommand,
  tokenRefusedExitCode,
} from '../../agent/core/cli.ts';
import { UsageError } from '../../shared/usage-error.ts';
import { waitFor } from '../helpers/wait.ts';
import { type AgentTestServer, startAgentTestServer } from './helpers/agent-test-server.ts';
import { HeldPrinterBackend } from './helpers/fake-backend.ts';
import { makeStateDir } from './helpers/state-dir.ts';

let server: AgentTestServer;
let state: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  server = await startAgentTestServer();
  state = await makeStateDir();
});
afterEach(async () => {
  await server.close();
  await state.cleanup();
});

describe('shopdesk agent arguments', () => {
  const good = { server: 'http://127.0.0.1:1', token: 't', route: ['receipts=PDF'] };

  it.each([
    [{ server: 'not a url' }, '--server must be a URL'],
    [{ server: 'ftp://x' }, 'http:// or https://'],
    [{ server: 'http://x/?token=abc' }, 'must not carry credentials'],
    [{ server: 'http://user:pw@x' }, 'must not carry credentials'],
    [{ token: ' ' }, '--token must not be empty'],
    [{ route: [] }, 'at least one --route'],
    [{ route: ['receipts'] }, 'NAME=PRINTER'],
    [{ route: ['Receipts=PDF'] }, 'route name "Receipts"'],
    [{ route: ['a=PDF', 'a=ZPL'] }, 'given twice'],
    [{ route: ['a=folder:'] }, 'needs a directory'],
    [{ route: ["a=PDF'; touch pwned #"] }, 'not a valid printer name'],
    [{ route: ['a=-oraw'] }, 'not a valid printer name'],
    [{ profile: ['receipts'] }, 'NAME=JSON'],
    [{ profile: ['receipts={'] }, 'not JSON'],
    [{ profile: ['receipts={"language":"escpos","width_mm":75}'] }, 'width_mm'],
    [{ profile: ['labels={"language":"zpl"}'] }, 'no --route gives'],
  ])('refuses %j', (change, message) => {
    expect(() => agentRuntimeOptionsFrom({ ...good, ...change, platform: 'linux' })).toThrow(
      UsageError,
    );
    expect(() => agentRuntimeOptionsFrom({ ...good, ...change, platform: 'linux' })).toThrow(
      message,
    );
  });

  it('gives a route the printer profile of its --profile', () => {
    const options = agentRuntimeOptionsFrom({
      ...good,
      profile: ['receipts={"language":"starprnt","width_mm":58,"drawer":true}'],
      platform: 'linux',
    });
    expect(options.routes).toEqual([
      {
        name: 'receipts',
        printer: 'PDF',
        profile: { language: 'starprnt', width_mm: 58, drawer: true },
      },
    ]);
  });

  it('reads NAME=PRINTER with "=" in the printer and makes folder: paths absolute', () => {
    expect(parseRouteArgument('a4=HP=LaserJet', 'win32')).toEqual({
      name: 'a4',
      printer: 'HP=LaserJet',
    });
    expect(parseRouteArgument('labels=folder:out/labels', 'linux')).toEqual({
      name: 'labels',
      printer: `folder:${join(process.cwd(), 'out/labels')}`,
    });
    expect(parseRouteArgument('a4=\\\\server\\HP LaserJet', 'win32').printer).toBe(
      '\\\\server\\HP LaserJet',
    );
  });

  it('parses --route NAME=P1,P2 as the printer and its backups, in order', () => {
    expect(parseRouteArgument('receipts=Front-1,Front-2', 'linux')).toEqual({
      name: 'receipts',
      printer: 'Front-1',
      backup_printers: ['Front-2'],
    });
    expect(
      parseRouteArgument('receipts=socket://10.0.0.5,folder:out/r,EPSON_TM_T20', 'linux'),
    ).toEqual({
      name: 'receipts',
      printer: 'socket://10.0.0.5',
      backup_printers: [`folder:${join(process.cwd(), 'out/r')}`, 'EPSON_TM_T20'],
    });
    expect(() => parseRouteArgument('receipts=Front-1,', 'linux')).toThrow(
      'route receipts: a printer name is empty (a comma with nothing beside it)',
    );
    expect(() => parseRouteArgument('receipts=Front-1,Front-1', 'linux')).toThrow(
      'route receipts: printer Front-1 is given twice',
    );
    expect(() => parseRouteArgument('receipts=a,b,c,d,e,f,g,h,i', 'linux')).toThrow(
      'route receipts: at most 8 printers, the first and 7 backups',
    );
    expect(() => parseRouteArgument('receipts=Front-1,bad/name', 'linux')).toThrow(
      'route receipts: "bad/name" is not a valid printer name',
    );
  });

  it('keeps state in a per-user directory by default', () => {
    expect(defaultStateDir('linux', { XDG_STATE_HOME: '/home/u/.local/state' })).toBe(
      '/home/u/.local/state/shopdesk/agent',
    );
    expect(defaultStateDir('win32', { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' })).toContain(
      'ShopDesk',
    );
  });

  it('writes nothing when the arguments are bad', async () => {
    const stateDir = join(state.dir, 'never');
    await expect(
      runAgentCommand({ ...good, route: ['bad name=x'], stateDir, handleSignals: false }),
    ).rejects.toBeInstanceOf(UsageError);
    expect(existsSync(stateDir)).toBe(false);
  });
});

describe('runAgentCommand against the real server', () => {
  it('prints a line per job on stdout and stops when told', async () => {
    const out = join(state.dir, 'out');
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let printed = '';
    let logged = '';
    stdout.on('data', (chunk) => {
      printed += chunk;
    });
    stderr.on('data', (chunk) => {
      logged += chunk;
    });
    const controller = new AbortController();
    const running = runAgentCommand({
      server: server.url,
      token: server.token,
      route: [`receipts=folder:${out}`],
      stateDir: join(state.dir, 'state'),
      stdout,
      stderr,
      signal: controller.signal,
      handleSignals: false,
    });
    const ok = await server.createJob({ route: 'receipts', title: 'ok', content: 'a' });
    await waitFor('printed', async () => (await server.job(ok.id)).status === 'printed');
    controller.abort();
    expect(await running).toBe(0);
    expect(printed.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^job ${ok.id} route=receipts printer=folder:\\S+ printed \\d+ ms$`),
      ),
    ]);
    expect(logged).toContain('connected');
    expect(logged).toContain('agent stopped');
    expect(logged).not.toContain(server.token);
    expect(await readdir(out)).toEqual([`${ok.id}-ok.txt`]);
  });

  it("gives the routes of the configuration file their profiles from it; a --profile replaces the file's", async () => {
    const config = join(state.dir, 'agent.json');
    await writeFile(
      config,
      JSON.stringify({
        server: server.url,
        routes: {
          receipts: `folder:${join(state.dir, 'out')}`,
          labels: `folder:${join(state.dir, 'labels')}`,
        },
        profiles: {
          receipts: { language: 'escpos', width_mm: 58 },
          labels: { language: 'zpl', width_mm: 50 },
        },
      }),
    );
    const controller = new AbortController();
    const running = runAgentCommand({
      config,
      token: server.token,
      route: [],
      profile: ['labels={"language":"zpl","width_mm":100,"dpi":300}'],
      stateDir: join(state.dir, 'state'),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      signal: controller.signal,
      handleSignals: false,
    });
    const profiles = await waitFor('the routes on the server', async () => {
      const listed = (await server.server.request('GET', '/printing/agents')).body.data;
      const routes = (listed[0]?.routes ?? []) as { name: string; profile?: unknown }[];
      return routes.length === 2
        ? Object.fromEntries(routes.map((r) => [r.name, r.profile]))
        : null;
    });
    controller.abort();
    expect(await running).toBe(0);
    expect(profiles).toEqual({
      receipts: { language: 'escpos', width_mm: 58 },
      labels: { language: 'zpl', width_mm: 100, dpi: 300 },
    });
  });

  it('takes the token from SHOPDESK_AGENT_TOKEN and keeps it from the processes it starts', async () => {
    const before = process.env['SHOPDESK_AGENT_TOKEN'];
    process.env['SHOPDESK_AGENT_TOKEN'] = server.token;
    onTestFinished(() => {
      if (before === undefined) delete process.env['SHOPDESK_AGENT_TOKEN'];
      else process.env['SHOPDESK_AGENT_TOKEN'] = before;
    });
    const controller = new AbortController();
    const running = runAgentCommand({
      server: server.url,
      route: [`receipts=folder:${join(state.dir, 'out')}`],
      stateDir: join(state.dir, 'state'),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      signal: controller.signal,
      handleSignals: false,
    });
    const job = await server.createJob({ route: 'receipts', content: 'a' });
    await waitFor('printed', async () => (await server.job(job.id)).status === 'printed');
    // lp, lpstat and PowerShell get a copy of process.env: the token is no longer in it.
    expect(process.env['SHOPDESK_AGENT_TOKEN']).toBeUndefined();
    controller.abort();
    expect(await running).toBe(0);
  });

  it('ends with exit code 77 when the server refuses the token, after saying so', async () => {
    let logged = '';
    const stderr = new PassThrough();
    stderr.on('data', (chunk) => {
      logged += chunk;
    });
    const code = await runAgentCommand({
      server: server.url,
      token: 'sd_not-the-token',
      route: [`receipts=folder:${join(state.dir, 'out')}`],
      stateDir: join(state.dir, 'state'),
      stdout: new PassThrough(),
      stderr,
      handleSignals: false,
    });
    expect(code).toBe(tokenRefusedExitCode);
    expect(tokenRefusedExitCode).toBe(77);
    expect(logged).toMatch(/ error the server refused the agent's token \(401\)/);
    expect(logged).toMatch(
      / error exiting with code 77 \(token refused\): the server does not accept this token \(unknown, expired or revoked\)/,
    );
    expect(logged).not.toContain('sd_not-the-token');
  });

  it('on a 403 says the token is valid and gives the server’s reason, not "give a valid token"', async () => {
    let logged = '';
    const stderr = new PassThrough();
    stderr.on('data', (chunk) => {
      logged += chunk;
    });
    const reader = await server.server.issueToken(['printing.jobs.read']);
    const code = await runAgentCommand({
      server: server.url,
      token: reader.secret,
      route: [`receipts=folder:${join(state.dir, 'out')}`],
      stateDir: join(state.dir, 'state'),
      stdout: new PassThrough(),
      stderr,
      handleSignals: false,
    });
    expect(code).toBe(tokenRefusedExitCode);
    expect(logged).toMatch(
      / error the server refused a request of the agent \(403\): .*printing\.agent/,
    );
    expect(logged).toMatch(
      / error exiting with code 77 \(request refused\): the token is valid, but the server refused what the agent asked: .*printing\.agent/,
    );
    expect(logged).not.toContain('give the agent a valid token');
  });

  it('with no --route and no default printer, stops on a usage error before trading the enrolment code', async () => {
    const it_ = await server.server.issueToken(['printing.agents.write']);
    const codes = (method: string, body?: unknown) =>
      fetch(`${server.server.url}/api/v1/printing/enrollments`, {
        method,
        headers: {
          authorization: `Bearer ${it_.secret}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }).then((answer) => answer.json());
    const made = await codes('POST', { routes: ['receipts'] });
    const backend = new HeldPrinterBackend();
    backend.printers = [];
    const running = runAgentCommand({
      server: server.url,
      enroll: made.data.code,
      route: [],
      stateDir: join(state.dir, 'state'),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      handleSignals: false,
      backend,
      env: {},
    });
    await expect(running).rejects.toThrow(UsageError);
    await expect(running).rejects.toThrow(
      'no --route given, and this computer has no default printer for the routes the enrolment code names',
    );
    const listed = await codes('GET');
    expect(listed.data[0]).toMatchObject({ id: made.data.id, state: 'active', used: 0 });
  });

  it('runs as a process and stops cleanly on SIGTERM', async () => {
    const out = join(state.dir, 'out');
    const script = `
      import { runAgentCommand } from ${JSON.stringify(join(process.cwd(), 'agent/core/cli.ts'))};
      const [server, token, route, stateDir] = process.argv.slice(1);
      process.exitCode = await runAgentCommand({ server, token, route: [route], stateDir });
    `;
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        script,
        server.url,
        server.token,
        `labels=folder:${out}`,
        join(state.dir, 's'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let printed = '';
    let logged = '';
    child.stdout.on('data', (chunk) => {
      printed += chunk;
    });
    child.stderr.on('data', (chunk) => {
      logged += chunk;
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    const job = await server.createJob({
      route: 'labels',
      content_type: 'application/vnd.zebra.zpl',
      content: '^XA^XZ',
    });
    await waitFor('printed', async () => (await server.job(job.id)).status === 'printed', 45_000);
    await waitFor('stdout line', () => printed.includes(`job ${job.id} `));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logged).toContain('stopping (SIGTERM)');
    expect(logged).toContain('agent stopped');
    expect(printed).toMatch(
      new RegExp(`^job ${job.id} route=labels printer=folder:\\S+ printed \\d+ ms\\n$`),
    );
  }, 90_000);
});
