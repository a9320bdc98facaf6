import { ApiError, ServerUnreachableError } from '../api-client.ts';
import type {
  AgentStatus,
  ConnectionState,
  JobResult,
  LogLine,
  RuntimeLogLine,
} from '../status.ts';

/**
 * What the runtime shows whoever drives it (the CLI's log, the tray and the window): its status
 * and its log lines, with their listeners. A change of connection is logged once, not at
 * every failed attempt.
 */
export class RuntimeStatus {
  readonly state: AgentStatus;
  readonly now: () => Date;
  readonly recentJobsLimit: number;
  private readonly statusListeners = new Set<(status: AgentStatus) => void>();
  private readonly logListeners = new Set<(line: RuntimeLogLine) => void>();
  private unreachableSince: number | null = null;

  constructor(serverUrl: string, now: () => Date, recentJobsLimit: number) {
    this.now = now;
    this.recentJobsLimit = recentJobsLimit;
    this.state = {
      connection: 'stopped',
      serverUrl,
      agentId: null,
      paused: false,
      printing: 0,
      pendingReports: 0,
      recentJobs: [],
      printers: [],
      notReady: [],
      lastError: null,
    };
  }

  snapshot(): AgentStatus {
    return structuredClone(this.state);
  }

  onStatus(listener: (status: AgentStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onLog(listener: (line: RuntimeLogLine) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /** Tells the status listeners that `state` changed. */
  emit(): void {
    if (this.statusListeners.size === 0) return;
    const snapshot = this.snapshot();
    for (const listener of this.statusListeners) listener(snapshot);
  }

  log(level: LogLine['level'], message: string, job?: JobResult): void {
    const line: RuntimeLogLine = { at: this.now().toISOString(), level, message };
    if (job) line.job = job;
    for (const listener of this.logListeners) listener(line);
  }

  setConnection(connection: ConnectionState): void {
    this.state.connection = connection;
    this.emit();
  }

  /** A call got through: the server is reachable (again). */
  noteConnected(): void {
    if (this.state.connection === 'connected') return;
    if (this.state.connection === 'unreachable' && this.unreachableSince !== null) {
      const seconds = Math.round((Date.now() - this.unreachableSince) / 1000);
      this.log('info', `server reachable again (was unreachable for ${seconds} s)`);
    }
    this.unreachableSince = null;
    this.state.lastError = null;
    this.state.refusal = null;
    this.setConnection('connected');
  }

  /** A call failed: unauthorized (401/403), unreachable (network, 5xx, 429) or another error. */
  noteFailure(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.state.lastError = message;
    let next: ConnectionState = this.state.connection;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      next = 'unauthorized';
      this.state.refusal = { status: error.status === 401 ? 401 : 403, message };
      if (this.state.connection !== next) {
        this.log(
          'error',
          error.status === 401
            ? `the server refused the agent's token (401): ${message}`
            : `the server refused a request of the agent (403): ${message}`,
        );
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
    else this.emit();
  }
}
