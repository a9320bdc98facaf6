import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobJournal } from '../../agent/core/journal.ts';
import { AgentRuntime } from '../../agent/core/runtime/agent-runtime.ts';
import type { AgentRuntimeOptions } from '../../agent/core/runtime/runtime-context.ts';
import type { AgentStatus, RuntimeLogLine } from '../../agent/core/status.ts';
import { waitFor } from '../helpers/wait.ts';
import { HeldPrinterBackend, readyPrinter } from './helpers/fake-backend.ts';
import { runtimeFixtureOfEach } from './helpers/runtime-fixture.ts';

const each = runtimeFixtureOfEach();

function makeRuntime(options: Partial<AgentRuntimeOptions> = {}) {
  const logs: RuntimeLogLine[] = [];
  const runtime = new AgentRuntime({
    serverUrl: each.server.url,
    token: each.server.token,
    stateDir: each.state.dir,
    routes: [{ name: 'receipts', printer: `folder:${each.output.dir}` }],
    hostname: 'till-1',
    client: { attempts: 1, backoff: { baseMs: 10, maxMs: 50 } },
    reconnect: { baseMs: 20, maxMs: 100 },
    stopGraceMs: 2000,
    ...options,
  });
  runtime.onLog((line) => logs.push(line));
  each.runtimes.push(runtime);
  return { runtime, logs };
}

const hasStatus = async (id: number, status: string) =>
  (await each.server.job(id)).status === status;

const connected = (runtime: AgentRuntime) =>
  waitFor('connected', () => runtime.status().connection === 'connected');

describe('AgentRuntime against the real server', () => {
  it('registers, saves its routes, prints a job into folder: and confirms it', async () => {
    const { runtime, logs } = makeRuntime();
    await runtime.start();
    await connected(runtime);
    const agentId = runtime.status().agentId!;
    // It registers with the package's version, as the server reads it from package.json.
    const { version } = JSON.parse(
      await readFile(join(import.meta.dirname, '../../package.json'), 'utf8'),
    ) as { version: string };
    const registered = await each.server.agent(agentId);
    expect(registered.version).toBe(version);
    expect(registered.routes).toEqual([
      { name: 'receipts', printer: `folder:${each.output.dir}`, enabled: true, options: {} },
    ]);
    const pdf = Buffer.from('%PDF-1.4 receipt 1');
    const job = await each.server.createJob({
      route: 'receipts',
      title: 'Receipt #1',
      content: pdf,
    });
    await waitFor('printed', () => hasStatus(job.id, 'printed'));
    expect(await readdir(each.output.dir)).toEqual([`${job.id}-Receipt_1.pdf`]);
    expect((await readFile(join(each.output.dir, `${job.id}-Receipt_1.pdf`))).equals(pdf)).toBe(
      true,
    );
    expect((await each.server.job(job.id)).printer).toBe(`folder:${each.output.dir}`);
    const jobLine = logs.find((line) => line.job?.jobId === job.id);
    expect(jobLine?.message).toMatch(
      new RegExp(`^job ${job.id} route=receipts printer=folder:\\S+ printed \\d+ ms$`),
    );
    // Nothing is left behind once the report is delivered.
    await waitFor('outbox empty', () => runtime.status().pendingReports === 0);
    expect(await readdir(join(each.state.dir, 'journal'))).toEqual([]);
  });

  it('keeps its uuid across restarts (agent.json)', async () => {
    const first = makeRuntime();
    await first.runtime.start();
    await connected(first.runtime);
    const uuid = first.runtime.status().agentId;
    await first.runtime.stop();
    const stored = JSON.parse(await readFile(join(each.state.dir, 'agent.json'), 'utf8'));
    expect(stored.uuid).toBe(uuid);
    const second = makeRuntime();
    await second.runtime.start();
    await connected(second.runtime);
    expect(second.runtime.status().agentId).toBe(uuid);
    expect(await each.server.agentCount()).toBe(1);
  });

  it('sends the jobs it holds in heartbeats while they print', async () => {
    const backend = new HeldPrinterBackend();
    backend.holdPrints();
    const { runtime } = makeRuntime({ backend });
    await runtime.start();
    await connected(runtime);
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('print started', () => backend.prints.length === 1);
    expect(runtime.status().printing).toBe(1);
    await waitFor('heartbeat with the held job', () =>
      each.server.proxy.requests.some(
        (request) =>
          request.path === '/printing/heartbeat' &&
          (request.body as { held_job_ids: number[] }).held_job_ids.includes(job.id),
      ),
    );
    backend.releasePrints();
    await waitFor('printed', () => hasStatus(job.id, 'printed'));
  });

  it('keeps printing while the server is away, and delivers the report when it is back', async () => {
    const backend = new HeldPrinterBackend();
    backend.holdPrints();
    const { runtime, logs } = makeRuntime({ backend });
    await runtime.start();
    await connected(runtime);
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('print started', () => backend.prints.length === 1);
    await each.server.proxy.goOffline();
    backend.releasePrints();
    await waitFor('unreachable', () => runtime.status().connection === 'unreachable');
    await waitFor('report waiting', () => runtime.status().pendingReports === 1);
    expect(await readdir(join(each.state.dir, 'outbox'))).toEqual([`${job.id}.json`]);
    // Several failed attempts while away...
    await new Promise((resolve) => setTimeout(resolve, 600));
    await each.server.proxy.comeBack();
    await waitFor('printed', () => hasStatus(job.id, 'printed'));
    await waitFor('connected again', () => runtime.status().connection === 'connected');
    // ...and one line for each transition.
    expect(logs.filter((line) => line.message.startsWith('server unreachable'))).toHaveLength(1);
    expect(logs.filter((line) => line.message.startsWith('server reachable again'))).toHaveLength(
      1,
    );
  });

  it('after a crash between the end of a print and its report, gives the job its line at the next start', async () => {
    const backend = new HeldPrinterBackend();
    backend.holdPrints();
    const first = makeRuntime({ backend, stopGraceMs: 100 });
    await first.runtime.start();
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('print started', () => backend.prints.length === 1);
    await first.runtime.stop();
    // As a crash right after the spooler said "completed": the journal says printed, no report
    // is in the outbox, and no line was said.
    const journal = new JobJournal(each.state.dir);
    const [entry] = await journal.readAll(() => {});
    await journal.finish(entry!, { state: 'printed' }, new Date());
    expect(first.logs.filter((line) => line.job)).toEqual([]);

    const second = makeRuntime({ backend: new HeldPrinterBackend() });
    await second.runtime.start();
    await waitFor('confirmed', () => hasStatus(job.id, 'printed'));
    expect(second.logs.filter((line) => line.job).map((line) => line.message)).toEqual([
      expect.stringMatching(
        new RegExp(`^job ${job.id} route=receipts printer=folder:\\S+ printed \\d+ ms$`),
      ),
    ]);
  });

  it('after a stop in the middle of a print, reports the job as interrupted and never prints it again', async () => {
    const backend = new HeldPrinterBackend();
    backend.holdPrints();
    const first = makeRuntime({ backend, stopGraceMs: 100 });
    await first.runtime.start();
    await connected(first.runtime);
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('print started', () => backend.prints.length === 1);
    // As a crash would: the spooler has the job and the agent goes away before it ends.
    await first.runtime.stop();
    const journal = await new JobJournal(each.state.dir).readAll(() => {});
    expect(journal).toMatchObject([{ job_id: job.id, state: 'spooling' }]);

    const secondBackend = new HeldPrinterBackend();
    const second = makeRuntime({ backend: secondBackend });
    await second.runtime.start();
    await waitFor('reported', () => hasStatus(job.id, 'failed'));
    expect((await each.server.job(job.id)).error).toEqual({
      code: 'agent_interrupted',
      message: 'agent stopped while printing; check the printer, then retry or reprint',
    });
    expect(secondBackend.prints).toHaveLength(0);
    expect(await readdir(join(each.state.dir, 'journal'))).toEqual([]);
    // Its job line and recent entry are those of any failed job.
    expect(second.logs.find((line) => line.job?.jobId === job.id)?.message).toMatch(
      new RegExp(
        `^job ${job.id} route=receipts printer=folder:\\S+ failed \\d+ ms: agent stopped while printing; check the printer, then retry or reprint \\(agent_interrupted\\)$`,
      ),
    );
    expect(second.runtime.status().recentJobs[0]).toMatchObject({
      id: job.id,
      status: 'failed',
      error: 'agent stopped while printing; check the printer, then retry or reprint',
    });

    // A person asks for it again: then, and only then, it prints.
    await second.runtime.retry(job.id);
    await waitFor('printed after retry', () => hasStatus(job.id, 'printed'));
    expect(secondBackend.prints.map((print) => print.job.id)).toEqual([job.id]);
  });

  it('after kill -9 in the middle of a print, reports the job as interrupted at the next start', async () => {
    // The agent runs in its own process, with a printer that never finishes, and is killed.
    const script = `
      import { AgentRuntime } from ${JSON.stringify(join(process.cwd(), 'agent/core/runtime/agent-runtime.ts'))};
      import { HeldPrinterBackend } from ${JSON.stringify(join(process.cwd(), 'test/agent/helpers/fake-backend.ts'))};
      const [serverUrl, token, stateDir] = process.argv.slice(1);
      const backend = new HeldPrinterBackend();
      backend.holdPrints();
      const runtime = new AgentRuntime({ serverUrl, token, stateDir, backend, routes: [{ name: 'receipts', printer: 'Fake' }] });
      runtime.onLog((line) => console.error(line.message));
      await runtime.start();
    `;
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, each.server.url, each.server.token, each.state.dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let childOutput = '';
    child.stdout.on('data', (chunk) => {
      childOutput += chunk;
    });
    child.stderr.on('data', (chunk) => {
      childOutput += chunk;
    });
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    const journal = new JobJournal(each.state.dir);
    // A child process starting on a loaded CI machine can take a while.
    await waitFor(
      'journalled as spooling',
      async () =>
        (await journal.readAll(() => {})).some(
          (entry) => entry.job_id === job.id && entry.state === 'spooling',
        ),
      45_000,
    ).catch((error: Error) => {
      const paths = each.server.proxy.requests.map(
        (request) => `${request.method} ${request.path}`,
      );
      throw new Error(
        `${error.message}\nagent said:\n${childOutput}\nserver saw: ${paths.join(', ')}`,
      );
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect((await each.server.job(job.id)).status).toBe('claimed');

    const backend = new HeldPrinterBackend();
    const { runtime } = makeRuntime({ backend, routes: [{ name: 'receipts', printer: 'Fake' }] });
    await runtime.start();
    await waitFor('reported', () => hasStatus(job.id, 'failed'));
    expect((await each.server.job(job.id)).error?.code).toBe('agent_interrupted');
    expect(backend.prints).toHaveLength(0);
  }, 90_000);

  it('never prints a document that does not match its sha256', async () => {
    const backend = new HeldPrinterBackend();
    const { runtime, logs } = makeRuntime({ backend });
    // A record to shape the answer from, on a route this agent does not serve.
    const template = await each.server.createJob({
      route: 'elsewhere',
      content: 'the real document',
    });
    const job = { ...template, id: 999, route: 'receipts' };
    const claimed = {
      ...job,
      status: 'claimed',
      document: {
        content_type: job.content_type,
        size: job.size,
        sha256: job.sha256,
        content_base64: Buffer.from('the REAL document').toString('base64'),
      },
    };
    each.server.proxy.addFault({
      path: /^\/printing\/jobs\/next$/,
      status: 200,
      body: { data: claimed },
    });
    await runtime.start();
    await waitFor('failed line', () => logs.find((line) => line.job?.jobId === job.id));
    expect(logs.find((line) => line.job?.jobId === job.id)?.job?.error?.code).toBe(
      'document_mismatch',
    );
    expect(backend.prints).toHaveLength(0);
  });

  it('reports a printer failure as the job error, with the back-end reason', async () => {
    const backend = new HeldPrinterBackend();
    backend.outcome = () => ({
      ok: false,
      code: 'printer_stopped',
      message: 'printer ZPL is disabled: paper jam',
      spoolerJobId: 'ZPL-3',
    });
    const { runtime, logs } = makeRuntime({ backend });
    await runtime.start();
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('failed', () => hasStatus(job.id, 'failed'));
    expect((await each.server.job(job.id)).error).toEqual({
      code: 'printer_stopped',
      message: 'printer ZPL is disabled: paper jam',
    });
    expect(logs.find((line) => line.job?.jobId === job.id)).toMatchObject({
      level: 'error',
      job: { result: 'failed', error: { code: 'printer_stopped' } },
    });
    expect(runtime.status().recentJobs[0]).toMatchObject({ id: job.id, status: 'failed' });
  });

  it('prints nothing while paused; a job its last poll brought prints on resume', async () => {
    const { runtime } = makeRuntime();
    const statuses: AgentStatus[] = [];
    runtime.onStatus((status) => statuses.push(status));
    await runtime.start();
    await connected(runtime);
    await waitFor('polling', () =>
      each.server.proxy.requests.some((request) => request.path === '/printing/jobs/next'),
    );
    runtime.pause();
    expect(statuses.at(-1)?.paused).toBe(true);
    // The poll open at the pause brings this one; it is held, not printed...
    const first = await each.server.createJob({ route: 'receipts', content: 'first' });
    await waitFor('held', () => runtime.status().recentJobs.some((job) => job.id === first.id));
    // ...and no further poll is made while paused.
    const second = await each.server.createJob({ route: 'receipts', content: 'second' });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await readdir(each.output.dir)).toEqual([]);
    expect((await each.server.job(first.id)).status).toBe('claimed');
    expect((await each.server.job(second.id)).status).toBe('queued');
    runtime.resume();
    await waitFor('first printed', () => hasStatus(first.id, 'printed'));
    await waitFor('second printed', () => hasStatus(second.id, 'printed'));
  });

  it('reports a job held while paused as not printed when the agent stops', async () => {
    const { runtime } = makeRuntime();
    await runtime.start();
    await connected(runtime);
    await waitFor('polling', () =>
      each.server.proxy.requests.some((request) => request.path === '/printing/jobs/next'),
    );
    runtime.pause();
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('held', () => runtime.status().recentJobs.some((recent) => recent.id === job.id));
    await runtime.stop();
    expect(await each.server.job(job.id)).toMatchObject({
      status: 'failed',
      error: { code: 'agent_stopped' },
    });
    expect(await readdir(each.output.dir)).toEqual([]);
  });

  it('stops at once while long-polling (the poll is aborted, not waited out)', async () => {
    const { runtime } = makeRuntime();
    await runtime.start();
    await connected(runtime);
    await waitFor('polling', () =>
      each.server.proxy.requests.some((request) => request.path === '/printing/jobs/next'),
    );
    const started = Date.now();
    await runtime.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(runtime.status().connection).toBe('stopped');
  });

  it('drops a confirm the server refuses because the lease ran out, with one lease_expired line', async () => {
    const backend = new HeldPrinterBackend();
    backend.holdPrints();
    const { runtime, logs } = makeRuntime({ backend });
    await runtime.start();
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('print started', () => backend.prints.length === 1);
    await each.server.expireLeases();
    backend.releasePrints();
    const leaseLine = await waitFor('the lease line', () =>
      logs.find((line) => line.job?.jobId === job.id && line.job.error?.code === 'lease_expired'),
    );
    expect(leaseLine.message).toMatch(
      new RegExp(
        `^job ${job.id} route=receipts printer=folder:\\S+ failed: printed here, but the server had failed it already: .*\\(lease_expired\\)$`,
      ),
    );
    // Not kept for ever: a 409 is not something a later attempt can change.
    await waitFor('outbox empty', () => runtime.status().pendingReports === 0);
    expect(await readdir(join(each.state.dir, 'outbox'))).toEqual([]);
    expect((await each.server.job(job.id)).error?.code).toBe('lease_expired');
    // Its printed line, then the lease line: two lines for the job, the second said once.
    expect(
      logs.filter((line) => line.job?.jobId === job.id).map((line) => line.job?.result),
    ).toEqual(['printed', 'failed']);
  });

  it('says once that the token is refused', async () => {
    const { runtime, logs } = makeRuntime({ token: 'not-the-token' });
    await runtime.start();
    await waitFor('unauthorized', () => runtime.status().connection === 'unauthorized');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logs.filter((line) => line.message.includes('refused the agent'))).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain('not-the-token');
  });

  it('prints a local test page on a route, and says why when it cannot', async () => {
    const { runtime, logs } = makeRuntime();
    await runtime.start();
    await runtime.testPrint('receipts');
    const [file] = await readdir(each.output.dir);
    expect(file).toBe('0-ShopDesk_test_page_receipts.txt');
    expect(await readFile(join(each.output.dir, file!), 'utf8')).toContain('route:   receipts');
    await expect(runtime.testPrint('labels')).rejects.toThrow('no route named labels');
    expect(
      logs.some((line) => line.message.startsWith('test page printed on route receipts')),
    ).toBe(true);
  });

  it('reprints a printed job as a new job, and lists printers from the back-end', async () => {
    const backend = new HeldPrinterBackend();
    const { runtime } = makeRuntime({ backend });
    await runtime.start();
    const job = await each.server.createJob({ route: 'receipts', content: 'x' });
    await waitFor('printed', () => hasStatus(job.id, 'printed'));
    await runtime.reprint(job.id);
    const reprinted = await each.server.job(job.id + 1);
    expect(reprinted.reprint_of).toBe(job.id);
    await waitFor('reprint printed', () => hasStatus(reprinted.id, 'printed'));
    expect(backend.prints.map((print) => print.job.id)).toEqual([job.id, reprinted.id]);
    const fake = readyPrinter('Fake', { is_default: true });
    const listed = [fake, readyPrinter(`folder:${each.output.dir}`)]; // and the route's folder
    expect(await runtime.listPrinters()).toEqual(listed);
    expect(runtime.status().printers).toEqual(listed);
  });

  it('does not spin when the server answers "no job" at once, whatever the wait', async () => {
    each.server.proxy.addFault({
      path: /^\/printing\/jobs\/next$/,
      status: 204,
      body: '',
      times: 1000,
    });
    const { runtime } = makeRuntime();
    await runtime.start();
    await connected(runtime);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const polls = each.server.proxy.requests.filter(
      (request) => request.path === '/printing/jobs/next',
    );
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls.length).toBeLessThanOrEqual(3);
  });
});
