import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import { type PrinterInfo, type PrintRoute, printRouteSchema } from '../../../shared/printing.ts';
import { routePrinterNames } from '../../../shared/wait-reasons.ts';
import { loadOrCreateIdentity } from '../agent-identity.ts';
import { AgentApiClient } from '../api-client.ts';
import { backoffDelay, sleep } from '../backoff.ts';
import { JobJournal } from '../journal.ts';
import { ReportOutbox } from '../outbox.ts';
import { createPrinterBackend } from '../printers/index.ts';
import { removeTempCopies, tempCopyPrefixFor } from '../printers/temp-copies.ts';
import { acquireStateLock, privateStateDir } from '../state-lock.ts';
import type { AgentControl, AgentStatus, RuntimeLogLine } from '../status.ts';
import { agentVersion } from '../version.ts';
import { connect } from './connect.ts';
import { heartbeatLoop } from './heartbeat-loop.ts';
import { deliverReports, outboxLoop } from './outbox-loop.ts';
import { pollLoop } from './poll-loop.ts';
import { printerWatchLoop, refreshPrinters } from './printer-watch.ts';
import { rememberJobRecord } from './recent-jobs.ts';
import { recoverJournal } from './recover-journal.ts';
import { type AgentRuntimeOptions, type RuntimeContext, requireClient } from './runtime-context.ts';
import { RuntimeStatus } from './runtime-status.ts';
import { checkServerRoutes } from './server-routes.ts';
import { Wakeup } from './wakeup.ts';

const fallbackIntervals = { long_poll_wait_seconds: 25, heartbeat_seconds: 30, lease_seconds: 120 };

/**
 * How long a clean stop waits for the job in hand, then for a last delivery of the outbox.
 * A service manager must allow their sum before it kills the agent (TimeoutStopSec= in
 * agent/service/shopdesk-agent.service).
 */
export const defaultStopGraceMs = 30_000;
export const finalDeliveryMs = 5000;
/** How long a clean stop waits for the server to hear it is going. */
export const signOffMs = 2000;

/**
 * The headless print agent: registers, saves its routes, heartbeats, long-polls for jobs,
 * prints each through a PrinterBackend and reports through the durable outbox. One job is
 * printed at a time, in the order the server hands them out.
 *
 * This file is the lifecycle (start, stop, pause, resume) and what the Electron shell asks
 * of it; each loop and the handling of one job live in their own files beside it and share a
 * RuntimeContext. Order of a job (what makes it at-most-once): claim → journal `spooling` →
 * spooler → journal `printed|failed` → outbox → journal entry removed → outbox delivered.
 */
export class AgentRuntime implements AgentControl {
  private readonly context: RuntimeContext;
  private lifetime = new AbortController();
  private loops: Promise<unknown>[] = [];
  private releaseLock: () => Promise<void> = async () => {};

  constructor(options: AgentRuntimeOptions) {
    const now = options.now ?? (() => new Date());
    this.context = {
      options,
      // Bad routes are an operator error: refuse them now rather than have the server 422 later.
      routes: options.routes.map((route) => printRouteSchema.parse(route)),
      refusedRoutes: new Map(),
      ownRoutes: options.routes.map((route) => printRouteSchema.parse(route)),
      routesVersion: null,
      routeListeners: new Set(),
      backend:
        options.backend ??
        createPrinterBackend(process.platform, {
          tempPrefix: tempCopyPrefixFor(options.stateDir),
          // A direct printer's state is read in its route's language, as the routes are now.
          languageOf: (printer) =>
            this.context.routes.find(
              (route) => route.profile && routePrinterNames(route).includes(printer),
            )?.profile?.language,
        }),
      journal: new JobJournal(options.stateDir),
      outbox: new ReportOutbox(options.stateDir),
      now,
      reconnect: options.reconnect ?? { baseMs: 1000, maxMs: 30_000 },
      status: new RuntimeStatus(options.serverUrl, now, options.recentJobsLimit ?? 50),
      inHand: new Set(),
      pollWakeup: new Wakeup(),
      outboxWakeup: new Wakeup(),
      heartbeatWakeup: new Wakeup(),
      spoolerProblem: null,
      leaseLost: new Set(),
      intervals: fallbackIntervals,
      identity: null,
      client: null,
    };
  }

  /**
   * Loads the identity, recovers what a crash left, then connects in the background:
   * resolves without waiting for the server, which may be away.
   */
  async start(): Promise<void> {
    const { context } = this;
    const { options, status, outbox } = context;
    if (status.state.connection !== 'stopped') return;
    // One agent per state directory, and the directory private to its user, before anything
    // in it is read or written (state-lock.ts). A refusal throws StateDirectoryInUse.
    const narrowed = await privateStateDir(options.stateDir);
    this.releaseLock = await acquireStateLock(options.stateDir);
    if (narrowed) status.log('warn', narrowed);
    this.lifetime = new AbortController();
    status.setConnection('starting');
    const identity = await loadOrCreateIdentity(options.stateDir, context.now());
    context.identity = identity;
    status.state.agentId = identity.uuid;
    await outbox.load((file, error) =>
      status.log('error', `outbox record ${file} is unreadable and was left as is: ${error}`),
    );
    await recoverJournal(context);
    // After the journal: its entries say what a crash interrupted; the copies it left are
    // of no use any more.
    const removed = await removeTempCopies(tempCopyPrefixFor(options.stateDir));
    if (removed > 0) {
      status.log(
        'info',
        `removed ${removed} temporary ${removed === 1 ? 'copy' : 'copies'} of documents an earlier run left behind`,
      );
    }
    status.state.pendingReports = outbox.size;
    context.client = new AgentApiClient({
      serverUrl: options.serverUrl,
      token: options.token,
      agentId: identity.uuid,
      userAgent: `shopdesk-agent/${agentVersion}`,
      ...options.client,
    });
    status.log('info', `agent ${identity.uuid} starting; server ${options.serverUrl}`);
    status.emit();
    this.loops = [this.run()];
  }

  async stop(): Promise<void> {
    const { context } = this;
    const { status } = context;
    if (status.state.connection === 'stopped') return;
    this.lifetime.abort(new Error('agent stopping'));
    context.pollWakeup.wake();
    context.outboxWakeup.wake();
    context.heartbeatWakeup.wake();
    // The loops end at once, except the poll loop, which first finishes the job in hand.
    const grace = context.options.stopGraceMs ?? defaultStopGraceMs;
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
      status.log(
        'warn',
        `a job was still printing after ${grace} ms; it stays in the journal and is reported as interrupted at the next start`,
      );
    } else if (context.outbox.size > 0 && context.client) {
      // One last, short try so that a clean stop leaves nothing behind when the server is up.
      await deliverReports(context, AbortSignal.timeout(finalDeliveryMs)).catch(() => {});
    }
    // Last: offline on the server at once, not one online interval (30 s) later. A server
    // that is away hears nothing; the agent shows offline there when its heartbeats stop.
    await context.client?.signOff(AbortSignal.timeout(signOffMs)).catch(() => {});
    await context.client?.close().catch(() => {});
    context.client = null;
    await this.releaseLock();
    this.releaseLock = async () => {};
    status.setConnection('stopped');
    status.log('info', 'agent stopped');
  }

  pause(): void {
    const { status } = this.context;
    if (status.state.paused) return;
    status.state.paused = true;
    status.log('info', 'paused: no new jobs are taken');
    status.emit();
  }

  resume(): void {
    const { status } = this.context;
    if (!status.state.paused) return;
    status.state.paused = false;
    this.context.pollWakeup.wake();
    status.log('info', 'resumed');
    status.emit();
  }

  status(): AgentStatus {
    return this.context.status.snapshot();
  }

  async retry(jobId: number): Promise<void> {
    const job = await requireClient(this.context).retryJob(jobId);
    this.context.status.log('info', `job ${jobId} queued again (retry)`);
    rememberJobRecord(this.context.status, job);
  }

  async reprint(jobId: number): Promise<void> {
    const job = await requireClient(this.context).reprintJob(jobId);
    this.context.status.log('info', `job ${jobId} reprinted as job ${job.id}`);
    rememberJobRecord(this.context.status, job);
  }

  /** Prints a short text page on a route's printer, locally: no server job is involved. */
  async testPrint(routeName: string): Promise<void> {
    const { status } = this.context;
    const route = this.context.routes.find((candidate) => candidate.name === routeName);
    if (!route) throw new Error(`no route named ${routeName}`);
    const text = [
      'ShopDesk test page',
      `route:   ${route.name}`,
      `printer: ${route.printer}`,
      `agent:   ${status.state.agentId ?? '(not started)'}`,
      `time:    ${this.context.now().toISOString()}`,
      '',
    ].join('\n');
    const outcome = await this.context.backend.print(
      { id: 0, title: `ShopDesk test page (${route.name})`, content_type: 'text/plain', copies: 1 },
      Buffer.from(text, 'utf8'),
      route.printer,
      route.options,
    );
    if (!outcome.ok) {
      status.log(
        'error',
        `test page on route ${route.name} (${route.printer}) failed: ${outcome.message}`,
      );
      throw new Error(outcome.message);
    }
    status.log('info', `test page printed on route ${route.name} (${route.printer})`);
  }

  async listPrinters(): Promise<PrinterInfo[]> {
    // Someone is looking at the list (the window's route mapping): the system's, as it is now.
    if (await refreshPrinters(this.context, true)) this.context.heartbeatWakeup.wake();
    return structuredClone(this.context.status.state.printers);
  }

  onStatus(listener: (status: AgentStatus) => void): () => void {
    return this.context.status.onStatus(listener);
  }

  onLog(listener: (line: RuntimeLogLine) => void): () => void {
    return this.context.status.onLog(listener);
  }

  /** Replaces the route mapping (settings screen) and saves it on the server. */
  async updateRoutes(routes: AgentRuntimeOptions['routes']): Promise<void> {
    const parsed = routes.map((route) => printRouteSchema.parse(route));
    // The poll waiting now still serves the old routes; the next one serves these.
    const saved = await requireClient(this.context).putRoutes(parsed, this.lifetime.signal);
    const checked = checkServerRoutes(saved.routes, parsed);
    this.context.ownRoutes = parsed;
    this.context.routes = checked.routes;
    this.context.refusedRoutes = checked.refused;
    // Its own change: the next heartbeat does not fetch it back as the server's.
    if (saved.routes_version !== undefined) this.context.routesVersion = saved.routes_version;
  }

  /**
   * Called with the routes the agent adopted from the server after they were changed there
   * (the console), so that a settings store keeps them (the tray's settings).
   */
  onRoutesAdopted(listener: (routes: PrintRoute[]) => void): () => void {
    this.context.routeListeners.add(listener);
    return () => this.context.routeListeners.delete(listener);
  }

  /** The routes as last saved or read from the server. */
  currentRoutes(): PrintRoute[] {
    return structuredClone(this.context.routes);
  }

  /** Connects (register, routes, config), then runs the four loops until stop(). */
  private async run(): Promise<void> {
    const { context } = this;
    const signal = this.lifetime.signal;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await connect(context, signal);
        break;
      } catch (error) {
        if (signal.aborted) return;
        context.status.noteFailure(error);
        await sleep(backoffDelay(context.reconnect, attempt), signal).catch(() => {});
      }
    }
    if (signal.aborted) return;
    await Promise.allSettled([
      heartbeatLoop(context, signal),
      printerWatchLoop(context, signal),
      pollLoop(context, signal),
      outboxLoop(context, signal),
    ]);
  }
}

/**
 * The Electron shell's entry (agent/electron/main/agent-host.ts): routes as the settings
 * window keeps them, route name → printer (or printers, a comma list in the order tried:
 * the first, then its backups), and route name → printer profile.
 */
export function createAgentRuntime(options: {
  serverUrl: string;
  token: string;
  stateDir: string;
  routes: Record<string, string>;
  profiles?: Record<string, PrinterProfile>;
}): AgentRuntime {
  const { profiles = {}, ...rest } = options;
  return new AgentRuntime({
    ...rest,
    routes: Object.entries(options.routes).map(([name, printers]) => ({
      name,
      ...splitPrinterList(printers),
      ...(profiles[name] && { profile: profiles[name] }),
    })),
  });
}

/**
 * `Front-1, Front-2` → the route's printer and its backups, in order (docs/agent.md, "Backup
 * printers"). One name reads as it always did; blanks around the commas are dropped.
 */
export function splitPrinterList(list: string): { printer: string; backup_printers?: string[] } {
  const [printer = '', ...backups] = list.split(',').map((name) => name.trim());
  return backups.length === 0 ? { printer } : { printer, backup_printers: backups };
}

/** A route's printers as one comma list, the form the tray's settings keep. */
export const joinPrinterList = (route: Parameters<typeof routePrinterNames>[0]): string =>
  routePrinterNames(route).join(',');
