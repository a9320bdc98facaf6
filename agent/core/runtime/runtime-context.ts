import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { AgentConfig, PrintOptions, PrintRoute } from '../../../shared/printing.ts';
import type { AgentIdentity } from '../agent-identity.ts';
import type { AgentApiClient, AgentApiClientOptions } from '../api-client.ts';
import type { BackoffPolicy } from '../backoff.ts';
import type { JobJournal } from '../journal.ts';
import type { ReportOutbox } from '../outbox.ts';
import type { PrinterBackend } from '../printers/backend.ts';
import type { RuntimeStatus } from './runtime-status.ts';
import type { Wakeup } from './wakeup.ts';

export interface AgentRuntimeOptions {
  serverUrl: string;
  token: string;
  stateDir: string;
  /** Route → printer mapping from the command line or the settings; saved on the server. */
  routes: Array<{
    name: string;
    printer: string;
    /** Printers tried after it, in order, when it cannot print (docs/agent.md, "Backup printers"). */
    backup_printers?: string[];
    enabled?: boolean;
    options?: PrintOptions;
    /** What the printer understands: the server renders template jobs for it. */
    profile?: PrinterProfile;
  }>;
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
  /** How often the printers' state is read (default 5 s; 15 s on Windows). */
  printerCheckMs?: number;
  /** A change of printer state is sent this long after it is seen (default 1 s). */
  printerReportDebounceMs?: number;
}

/**
 * What the parts of one AgentRuntime share: the start-up, the loops and the handling of a job
 * each get it as their first argument. `AgentRuntime` alone creates it.
 */
export interface RuntimeContext {
  readonly options: AgentRuntimeOptions;
  readonly backend: PrinterBackend;
  readonly journal: JobJournal;
  readonly outbox: ReportOutbox;
  readonly now: () => Date;
  readonly reconnect: BackoffPolicy;
  readonly status: RuntimeStatus;
  /** Jobs claimed and not yet reported: heartbeats hold their leases. */
  readonly inHand: Set<number>;
  /** Wakes the poll loop: on resume and on stop. */
  readonly pollWakeup: Wakeup;
  /** Wakes the outbox loop: a new report, a heartbeat that got through, stop. */
  readonly outboxWakeup: Wakeup;
  /** Wakes the heartbeat loop: the printers changed. */
  readonly heartbeatWakeup: Wakeup;
  /** Why the system's spooler cannot print (CUPS not running), as last said; null: it can. */
  spoolerProblem: string | null;
  /** Jobs whose lost lease has had its line: said once, however the agent hears of it. */
  readonly leaseLost: Set<number>;
  /** The routes served; the server's copy once connected (server-routes.ts checks it). */
  routes: PrintRoute[];
  /** Routes from the server that this agent refuses to serve, with why (server-routes.ts). */
  refusedRoutes: Map<string, string>;
  /**
   * The routes of this PC's own configuration (options, then the settings screen): the only
   * source of a printer that is not the system's (server-routes.ts).
   */
  ownRoutes: PrintRoute[];
  /** The server's routes version as this agent last saved or read it; null before. */
  routesVersion: number | null;
  /** Told the routes adopted from the server after a change there (route-sync.ts). */
  readonly routeListeners: Set<(routes: PrintRoute[]) => void>;
  intervals: AgentConfig['intervals'];
  identity: AgentIdentity | null;
  /** Set from start() to stop(). */
  client: AgentApiClient | null;
}

export function requireClient(context: RuntimeContext): AgentApiClient {
  if (context.client === null) throw new Error('the agent is not started');
  return context.client;
}
