import { createHash } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import {
  type ClaimedJob,
  type JobRecord,
  type PrinterInfo,
  type PrintOptions,
  type PrintRoute,
  printRouteSchema,
} from '../../shared/printing.ts';
import { type AgentIdentity, loadOrCreateIdentity } from './agent-identity.ts';
import {
  AgentApiClient,
  type AgentApiClientOptions,
  ApiError,
  ServerUnreachableError,
} from './api-client.ts';
import { type BackoffPolicy, backoffDelay, sleep } from './backoff.ts';
import { interruptedJobError, JobJournal } from './journal.ts';
import { type OutboxReport, ReportOutbox, sendReport } from './outbox.ts';
import type { PrinterBackend, PrintFailureCode, PrintOutcome } from './printers/backend.ts';
import { createPrinterBackend } from './printers/index.ts';
import type { AgentControl, AgentStatus, ConnectionState, LogLine, RecentJob } from './status.ts';

export const agentVersion = '0.1.0';

/** What the runtime says about one job once it is done with it (a line on the CLI's stdout). */
export interface JobResult {
  jobId: number;
  route: string;
  title: string | null;
  printer: string | null;
  result: 'printed' | 'failed';
  ms: number;
  error: { code: string; message: string } | null;
}

/** A log line; job lines also carry the job's result (structurally still a LogLine). */
export interface RuntimeLogLine extends LogLine {
  job?: JobResult;
}

export interface AgentRuntimeOptions {
  serverUrl: string;
  token: string;
  stateDir: string;
  /** Route → printer mapping from the command line or the settings; saved on the server. */
  routes: Array<{ name: string; printer: string; enabled?: boolean; options?: PrintOptions }>;
  agentName?: string;
  hostname?: string;
  backend?: PrinterBackend;
  /** Passed to the API client (tests shorten backoffs). */
  client?: Partial<AgentApiClientOptions>;
  /** Backoff of the loops while the server is away. */
  reconnect?: BackoffPolicy;
  /** How long stop() waits for the job in hand before leaving it to the journal. */
  stopGraceMs?: number;
  now?: () => Date;
  recentJobsLimit?: number;
}

export const notPrintedOnStopError = {
  code: 'agent_stopped',
  message: 'the agent stopped before printing this job; it was not printed, retry it',
} as const;

const fallbackIntervals = { long_poll_wait_seconds: 25, heartbeat_seconds: 30, lease_seconds: 120 };

/**
 * The headless print agent: registers, saves its routes, heartbeats, long-polls for jobs,
 * prints each through a PrinterBackend and reports through the durable outbox. One job is
 * printed at a time, in the order the server hands them out.
 *
 * Order of a job (what makes it at-most-once): claim → journal `spooling` → spooler →
 * journal `printed|failed` → outbox → journal entry removed → outbox delivered. A crash
 * anywhere leaves enough on disk to report the job, and never to print it again.
 */
export class AgentRuntime implements AgentControl {
  private readonly options: AgentRuntimeOptions;
  private readonly backend: PrinterBackend;
  private readonly journal: JobJournal;
  private readonly outbox: ReportOutbox;
  private readonly now: () => Date;
  private readonly reconnect: BackoffPolicy;
  private readonly statusListeners = new Set<(status: AgentStatus) => void>();
  private readonly logListeners = new Set<(line: RuntimeLogLine) => void>();
  private readonly inHand = new Set<number>();
  private readonly state: AgentStatus;
  private routes: PrintRoute[];
  private intervals = fallbackIntervals;
  private identity: AgentIdentity | null = null;
  private client: AgentApiClient | null = null;
  private lifetime = new AbortController();
  private wakeJobLoop: (() => void) | null = null;
  private wakeOutbox: (() => void) | null = null;
  private loops: Promise<unknown>[] = [];
  private unreachableSince: number | null = null;

  constructor(options: AgentRuntimeOptions) {
    this.options = options;
    // Bad routes are an operator error: refuse them now rather than have the server 422 later.
    this.routes = options.routes.map((route) => printRouteSchema.parse(route));
    this.backend = options.backend ?? createPrinterBackend();
    this.journal = new JobJournal(options.stateDir);
    this.outbox = new ReportOutbox(options.stateDir);
    this.now = options.now ?? (() => new Date());
    this.reconnect = options.reconnect ?? { baseMs: 1000, maxMs: 30_000 };
    this.state = {
      connection: 'stopped',
      serverUrl: options.serverUrl,
      agentId: null,
      paused: false,
      printing: 0,
      pendingReports: 0,
      recentJobs: [],
      printers: [],
      lastError: null,
    };
  }

  // ---- AgentControl ---------------------------------------------------------------------

  /**
   * Loads the identity, recovers what a crash left, then connects in the background:
   * resolves without waiting for the server, which may be away.
   */
  async start(): Promise<void> {
    if (this.state.connection !== 'stopped') return;
    this.lifetime = new AbortController();
    this.setConnection('starting');
    this.identity = await loadOrCreateIdentity(this.options.stateDir, this.now());
    this.state.agentId = this.identity.uuid;
    await this.outbox.load((file, error) =>
      this.log('error', `outbox record ${file} is unreadable and was left as is: ${error}`),
    );
    await this.recoverJournal();
    this.state.pendingReports = this.outbox.size;
    this.client = new AgentApiClient({
      serverUrl: this.options.serverUrl,
      token: this.options.token,
      agentId: this.identity.uuid,
      userAgent: `shopdesk-agent/${agentVersion}`,
      ...this.options.client,
    });
    this.log('info', `agent ${this.identity.uuid} starting; server ${this.options.serverUrl}`);
    this.emitStatus();
    this.loops = [this.runAgent()];
  }

  async stop(): Promise<void> {
    if (this.state.connection === 'stopped') return;
    this.lifetime.abort(new Error('agent stopping'));
    this.wakeJobLoop?.();
    this.wakeOutbox?.();
    // The loops end at once, except the job loop, which first finishes the job in hand.
    const grace = this.options.stopGraceMs ?? 30_000;
    const graceOver = new AbortController();
    const finished = await Promise.race([
      Promise.allSettled(this.loops).then(() => true),
      sleep(grace, graceOver.signal).then(
        () => false,
        () => true,
      ),
    ]);
    // A pending grace timer would keep the process alive after a clean stop.
    graceOver.abort();
    if (!finished) {
      this.log(
        'warn',
        `a job was still printing after ${grace} ms; it stays in the journal and is reported as interrupted at the next start`,
      );
    } else if (this.outbox.size > 0 && this.client) {
      // One last, short try so that a clean stop leaves nothing behind when the server is up.
      await this.deliverReports(AbortSignal.timeout(5000)).catch(() => {});
    }
    await this.client?.close().catch(() => {});
    this.client = null;
    this.setConnection('stopped');
    this.log('info', 'agent stopped');
  }

  pause(): void {
    if (this.state.paused) return;
    this.state.paused = true;
    this.log('info', 'paused: no new jobs are taken');
    this.emitStatus();
  }

  resume(): void {
    if (!this.state.paused) return;
    this.state.paused = false;
    this.wakeJobLoop?.();
    this.log('info', 'resumed');
    this.emitStatus();
  }

  status(): AgentStatus {
    return structuredClone(this.state);
  }

  async retry(jobId: number): Promise<void> {
    const job = await this.requireClient().retryJob(jobId);
    this.log('info', `job ${jobId} queued again (retry)`);
    this.rememberRecord(job);
  }

  async reprint(jobId: number): Promise<void> {
    const job = await this.requireClient().reprintJob(jobId);
    this.log('info', `job ${jobId} reprinted as job ${job.id}`);
    this.rememberRecord(job);
  }

  /** Prints a short text page on a route's printer, locally: no server job is involved. */
  async testPrint(routeName: string): Promise<void> {
    const route = this.routes.find((candidate) => candidate.name === routeName);
    if (!route) throw new Error(`no route named ${routeName}`);
    const text = [
      'ShopDesk test page',
      `route:   ${route.name}`,
      `printer: ${route.printer}`,
      `agent:   ${this.state.agentId ?? '(not started)'}`,
      `time:    ${this.now().toISOString()}`,
      '',
    ].join('\n');
    const outcome = await this.backend.print(
      { id: 0, title: `ShopDesk test page (${route.name})`, content_type: 'text/plain', copies: 1 },
      Buffer.from(text, 'utf8'),
      route.printer,
      route.options,
    );
    if (!outcome.ok) {
      this.log(
        'error',
        `test page on route ${route.name} (${route.printer}) failed: ${outcome.message}`,
      );
      throw new Error(outcome.message);
    }
    this.log('info', `test page printed on route ${route.name} (${route.printer})`);
  }

  async listPrinters(): Promise<PrinterInfo[]> {
    const printers = await this.backend.listPrinters();
    this.state.printers = printers;
    this.emitStatus();
    return printers;
  }

  onStatus(listener: (status: AgentStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onLog(listener: (line: RuntimeLogLine) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /** Replaces the route mapping (settings screen) and saves it on the server. */
  async updateRoutes(routes: AgentRuntimeOptions['routes']): Promise<void> {
    const parsed = routes.map((route) => printRouteSchema.parse(route));
    // The poll waiting now still serves the old routes; the next one serves these.
    this.routes = await this.requireClient().putRoutes(parsed, this.lifetime.signal);
  }

  /** The routes as last saved or read from the server. */
  currentRoutes(): PrintRoute[] {
    return structuredClone(this.routes);
  }

  // ---- start-up and recovery -------------------------------------------------------------

  /**
   * Turns what the journal holds into reports. A job still `spooling` may or may not have
   * come out of the printer: it is reported as interrupted, for a person to check and retry
   * or reprint, and never printed again by the agent on its own.
   */
  private async recoverJournal(): Promise<void> {
    await this.journal.removeCrashLeftovers();
    const entries = await this.journal.readAll((file, error) =>
      this.log('error', `journal record ${file} is unreadable and was left as is: ${error}`),
    );
    for (const entry of entries) {
      const at = this.now().toISOString();
      if (entry.state === 'spooling') {
        await this.outbox.add({
          kind: 'error',
          job_id: entry.job_id,
          ...interruptedJobError,
          queued_at: at,
        });
        this.log(
          'warn',
          `job ${entry.job_id} (route ${entry.route}, printer ${entry.printer}) was being printed when the agent stopped; reported as ${interruptedJobError.code}`,
        );
      } else if (entry.state === 'printed') {
        await this.outbox.add({
          kind: 'confirm',
          job_id: entry.job_id,
          printer: entry.printer,
          queued_at: at,
        });
      } else {
        const error = entry.error ?? { code: 'printer_error', message: 'failed' };
        await this.outbox.add({ kind: 'error', job_id: entry.job_id, ...error, queued_at: at });
      }
      await this.journal.remove(entry.job_id);
    }
  }

  /** Connects (register, routes, config), then runs the three loops until stop(). */
  private async runAgent(): Promise<void> {
    const signal = this.lifetime.signal;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await this.connect(signal);
        break;
      } catch (error) {
        if (signal.aborted) return;
        this.noteFailure(error);
        await sleep(backoffDelay(this.reconnect, attempt), signal).catch(() => {});
      }
    }
    if (signal.aborted) return;
    await Promise.allSettled([
      this.heartbeatLoop(signal),
      this.jobLoop(signal),
      this.outboxLoop(signal),
    ]);
  }

  private async connect(signal: AbortSignal): Promise<void> {
    const client = this.requireClient();
    const printers = await this.backend.listPrinters().catch((error: unknown) => {
      this.log('warn', `could not list printers: ${(error as Error).message}`);
      return [];
    });
    this.state.printers = printers;
    const hostname = (this.options.hostname ?? osHostname()).slice(0, 255) || 'unknown';
    await client.register(
      {
        uuid: this.identity!.uuid,
        name: (this.options.agentName ?? hostname).slice(0, 255),
        hostname,
        platform: process.platform,
        version: agentVersion,
        printers: printers.slice(0, 500),
      },
      signal,
    );
    if (this.routes.length > 0) this.routes = await client.putRoutes(this.routes, signal);
    const config = await client.getConfig(signal);
    if (this.routes.length === 0) this.routes = config.routes;
    this.intervals = config.intervals;
    this.noteConnected();
    this.log(
      'info',
      `connected; routes: ${this.routes.map((route) => `${route.name}=${route.printer}${route.enabled ? '' : ' (disabled)'}`).join(', ') || '(none)'}`,
    );
  }

  // ---- loops ---------------------------------------------------------------------------

  private async heartbeatLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(Math.max(1, this.intervals.heartbeat_seconds) * 1000, signal).catch(() => {});
      if (signal.aborted) return;
      try {
        const held = [...new Set([...this.inHand, ...this.outbox.pending().map((r) => r.job_id)])];
        const result = await this.requireClient().heartbeat(
          { paused: this.state.paused, held_job_ids: held.slice(0, 1000) },
          signal,
        );
        this.noteConnected();
        for (const id of result.released_job_ids) {
          if (this.inHand.has(id)) {
            this.log(
              'warn',
              `the server no longer gives job ${id} to this agent (its lease ran out)`,
            );
          }
        }
        if (this.outbox.size > 0) this.wakeOutbox?.();
      } catch (error) {
        if (signal.aborted) return;
        this.noteFailure(error);
      }
    }
  }

  private async jobLoop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      if (this.state.paused) {
        await this.untilResumed();
        continue;
      }
      // Only stop() aborts a long-poll: a job the server claims just as the agent hangs up
      // would reach nobody and wait for its lease to run out. Pausing lets the poll finish.
      const wait = Math.min(30, Math.max(1, this.intervals.long_poll_wait_seconds));
      const polledAt = performance.now();
      let job: ClaimedJob | null;
      try {
        job = await this.requireClient().claimNextJob(wait, signal);
        failures = 0;
        this.noteConnected();
      } catch (error) {
        if (signal.aborted) return;
        this.noteFailure(error);
        await sleep(backoffDelay(this.reconnect, failures++), signal).catch(() => {});
        continue;
      }
      if (job === null) {
        // A server answering "none" at once, whatever the wait, must not make this a busy loop.
        if (performance.now() - polledAt < 500) await sleep(1000, signal).catch(() => {});
        continue;
      }
      if (this.state.paused && !(await this.holdWhilePaused(job, signal))) return;
      await this.handleJob(job);
    }
  }

  private untilResumed(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wakeJobLoop = () => {
        this.wakeJobLoop = null;
        resolve();
      };
    });
  }

  /**
   * A job that a poll brought as the agent paused is kept, unprinted, until resume (its lease
   * is extended by heartbeats meanwhile). If the agent stops first, the job is reported as
   * not printed, which is certain, so retrying it is safe. Returns false on stop.
   */
  private async holdWhilePaused(job: ClaimedJob, signal: AbortSignal): Promise<boolean> {
    this.log('info', `job ${job.id} arrived as the agent paused; it prints on resume`);
    this.inHand.add(job.id);
    this.remember({
      id: job.id,
      route: job.route,
      title: job.title,
      status: 'claimed',
      printer: null,
      error: null,
    });
    while (this.state.paused && !signal.aborted) await this.untilResumed();
    this.inHand.delete(job.id);
    if (!signal.aborted) return true;
    await this.outbox
      .add({
        kind: 'error',
        job_id: job.id,
        ...notPrintedOnStopError,
        queued_at: this.now().toISOString(),
      })
      .catch((error: unknown) => this.log('error', `job ${job.id}: ${(error as Error).message}`));
    this.log('warn', `job ${job.id} was not printed: the agent stopped while paused`);
    return false;
  }

  private async outboxLoop(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      if (this.outbox.size === 0) {
        await new Promise<void>((resolve) => {
          this.wakeOutbox = resolve;
        });
        this.wakeOutbox = null;
        continue;
      }
      const { lastError } = await this.deliverReports(signal);
      if (lastError === null) {
        failures = 0;
        continue;
      }
      if (signal.aborted) return;
      this.noteFailure(lastError);
      // Woken early by a heartbeat that got through: the server is back.
      await Promise.race([
        sleep(backoffDelay(this.reconnect, failures++), signal).catch(() => {}),
        new Promise<void>((resolve) => {
          this.wakeOutbox = resolve;
        }),
      ]);
      this.wakeOutbox = null;
    }
  }

  private async deliverReports(signal: AbortSignal) {
    const client = this.requireClient();
    const sender = {
      confirmJob: (id: number, body: { printer?: string }) => client.confirmJob(id, body, signal),
      reportJobError: (id: number, body: { message: string; code?: string }) =>
        client.reportJobError(id, body, signal),
      getJob: (id: number) => client.getJob(id, signal),
    };
    const result = await this.outbox.deliver(
      (report) => sendReport(sender, report),
      (report, delivery) => {
        if (delivery.result === 'delivered') {
          this.noteConnected();
          if (delivery.note) this.log('info', delivery.note);
        } else if (delivery.result === 'refused') {
          this.log('warn', delivery.note);
          this.updateRecent(report.job_id, undefined, delivery.note);
        }
      },
    );
    this.state.pendingReports = this.outbox.size;
    this.emitStatus();
    return result;
  }

  // ---- one job ---------------------------------------------------------------------------

  /**
   * Prints one claimed job and leaves its report in the outbox. Be careful about what can
   * throw here: whatever happens, the job must end up reported, or journalled as spooling.
   */
  private async handleJob(job: ClaimedJob): Promise<void> {
    const started = performance.now();
    const route = this.routes.find(
      (candidate) => candidate.name === job.route && candidate.enabled,
    );
    const printer = route?.printer ?? null;
    this.inHand.add(job.id);
    this.state.printing = this.inHand.size;
    this.remember({
      id: job.id,
      route: job.route,
      title: job.title,
      status: 'printing',
      printer,
      error: null,
    });

    let outcome: PrintOutcome;
    let journalled = false;
    const document = Buffer.from(job.document.content_base64, 'base64');
    const digest = createHash('sha256').update(document).digest('hex');
    try {
      if (route === undefined || printer === null) {
        outcome = refuse('no_route', `this agent has no enabled route named ${job.route}`);
      } else if (
        document.length !== job.document.size ||
        digest !== job.document.sha256.toLowerCase()
      ) {
        // Never print a document that is not what the integrator sent.
        outcome = refuse('document_mismatch', 'the document does not match its size and sha256');
      } else {
        const entry = await this.journal.beginSpooling(
          { job_id: job.id, route: job.route, title: job.title, printer },
          this.now(),
        );
        journalled = true;
        outcome = await this.backend
          .print(job, document, printer, { ...route.options, ...job.options })
          .catch((error: unknown) => refuse('printer_error', (error as Error).message));
        await this.journal.finish(
          entry,
          outcome.ok
            ? { state: 'printed' }
            : { state: 'failed', error: { code: outcome.code, message: outcome.message } },
          this.now(),
        );
      }
      const at = this.now().toISOString();
      const report: OutboxReport = outcome.ok
        ? { kind: 'confirm', job_id: job.id, printer: outcome.printer, queued_at: at }
        : {
            kind: 'error',
            job_id: job.id,
            code: outcome.code,
            message: outcome.message,
            queued_at: at,
          };
      await this.outbox.add(report);
      if (journalled) await this.journal.remove(job.id);
    } catch (error) {
      // The disk refused the journal or the outbox. If the journal says spooling, the next
      // start reports the job; if nothing was spooled, the lease expiry reports it.
      this.log(
        'error',
        `job ${job.id}: could not record its progress: ${(error as Error).message}`,
      );
      this.inHand.delete(job.id);
      this.state.printing = this.inHand.size;
      this.emitStatus();
      return;
    }

    this.inHand.delete(job.id);
    this.state.printing = this.inHand.size;
    this.state.pendingReports = this.outbox.size;
    const ms = Math.round(performance.now() - started);
    const result: JobResult = {
      jobId: job.id,
      route: job.route,
      title: job.title,
      printer,
      result: outcome.ok ? 'printed' : 'failed',
      ms,
      error: outcome.ok ? null : { code: outcome.code, message: outcome.message },
    };
    this.updateRecent(job.id, result.result, result.error?.message ?? null);
    const line = `job ${job.id} route=${job.route} printer=${printer ?? '-'} ${result.result} ${ms} ms`;
    if (outcome.ok) this.log('info', line, result);
    else this.log('error', `${line}: ${outcome.message} (${outcome.code})`, result);
    this.wakeOutbox?.();
  }

  // ---- status and logs -----------------------------------------------------------------

  private noteConnected(): void {
    if (this.state.connection === 'connected') return;
    if (this.state.connection === 'unreachable' && this.unreachableSince !== null) {
      const seconds = Math.round((Date.now() - this.unreachableSince) / 1000);
      this.log('info', `server reachable again (was unreachable for ${seconds} s)`);
    }
    this.unreachableSince = null;
    this.state.lastError = null;
    this.setConnection('connected');
  }

  /** Logs a transition once, not every failed attempt. */
  private noteFailure(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.state.lastError = message;
    let next: ConnectionState = this.state.connection;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      next = 'unauthorized';
      if (this.state.connection !== next) {
        this.log('error', `the server refused the agent's token (${error.status}): ${message}`);
      }
    } else if (
      error instanceof ServerUnreachableError ||
      (error instanceof ApiError && (error.status >= 500 || error.status === 429))
    ) {
      next = 'unreachable';
      if (this.state.connection !== next) {
        this.unreachableSince = Date.now();
        this.log(
          'warn',
          `server unreachable: ${message}; jobs in hand still print and their reports wait in the outbox`,
        );
      }
    } else {
      this.log('error', message);
    }
    if (next !== this.state.connection) this.setConnection(next);
    else this.emitStatus();
  }

  private setConnection(connection: ConnectionState): void {
    this.state.connection = connection;
    this.emitStatus();
  }

  private remember(job: Omit<RecentJob, 'at'>): void {
    const recent: RecentJob = { ...job, at: this.now().toISOString() };
    this.state.recentJobs = [
      recent,
      ...this.state.recentJobs.filter((other) => other.id !== job.id),
    ].slice(0, this.options.recentJobsLimit ?? 50);
    this.emitStatus();
  }

  private rememberRecord(job: JobRecord): void {
    this.remember({
      id: job.id,
      route: job.route,
      title: job.title,
      status: job.status,
      printer: job.printer,
      error: job.error?.message ?? null,
    });
  }

  private updateRecent(
    jobId: number,
    status: RecentJob['status'] | undefined,
    error: string | null,
  ): void {
    const recent = this.state.recentJobs.find((job) => job.id === jobId);
    if (!recent) return;
    recent.error = error;
    if (status !== undefined) recent.status = status;
    recent.at = this.now().toISOString();
    this.emitStatus();
  }

  private emitStatus(): void {
    if (this.statusListeners.size === 0) return;
    const snapshot = this.status();
    for (const listener of this.statusListeners) listener(snapshot);
  }

  private log(level: LogLine['level'], message: string, job?: JobResult): void {
    const line: RuntimeLogLine = { at: this.now().toISOString(), level, message };
    if (job) line.job = job;
    for (const listener of this.logListeners) listener(line);
  }

  private requireClient(): AgentApiClient {
    if (this.client === null) throw new Error('the agent is not started');
    return this.client;
  }
}

function refuse(code: PrintFailureCode, message: string): PrintOutcome {
  return { ok: false, code, message, spoolerJobId: null };
}

/**
 * The Electron shell's entry (agent/electron/main/agent-host.ts): routes as the settings
 * window keeps them, route name → printer.
 */
export function createAgentRuntime(options: {
  serverUrl: string;
  token: string;
  stateDir: string;
  routes: Record<string, string>;
}): AgentRuntime {
  return new AgentRuntime({
    ...options,
    routes: Object.entries(options.routes).map(([name, printer]) => ({ name, printer })),
  });
}
