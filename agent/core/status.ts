import type { JobStatus, PrinterInfo, PrintRoute } from '../../shared/printing.ts';

/**
 * What the agent's runtime tells whoever shows it (the headless log, the Electron tray and
 * window). Plain data: the tray menu and the window are pure functions of it.
 */
export type ConnectionState = 'starting' | 'connected' | 'unreachable' | 'unauthorized' | 'stopped';

/** A job as the agent last saw it; `printing` is the agent's own state between claim and report. */
export interface RecentJob {
  id: number;
  route: string;
  title: string | null;
  status: JobStatus | 'printing';
  printer: string | null;
  error: string | null;
  at: string;
}

/** A printer one of the agent's enabled routes prints on that cannot print now. */
export interface NotReadyPrinter {
  /** The printer as the last check saw it (state `unknown` when the system does not list it). */
  printer: PrinterInfo;
  /** False when the system does not list the printer at all (removed, renamed, CUPS down). */
  listed: boolean;
  /** The enabled routes that print on it. */
  routes: string[];
  /** When the agent first saw it not ready (ISO 8601). */
  since: string;
}

export interface AgentStatus {
  connection: ConnectionState;
  serverUrl: string;
  agentId: string | null;
  paused: boolean;
  /** Jobs handed to a printer and not yet reported. */
  printing: number;
  /** Reports waiting in the outbox for the server. */
  pendingReports: number;
  recentJobs: RecentJob[];
  /** Every printer the agent reports, with its state (docs/agent.md, "Printer states"). */
  printers: PrinterInfo[];
  /** The printers of enabled routes that are not ready, in route order. */
  notReady: NotReadyPrinter[];
  lastError: string | null;
  /** The server's last refusal (401: the token; 403: something a valid token asked), if any. */
  refusal?: { status: 401 | 403; message: string } | null;
}

export interface LogLine {
  at: string;
  level: 'info' | 'warn' | 'error';
  message: string;
}

/** What the runtime says about one job once it is done with it (a line on the CLI's stdout). */
export interface JobResult {
  jobId: number;
  route: string;
  title: string | null;
  printer: string | null;
  /** `queued`: given back unprinted, its printer cannot print now (the server queues it again). */
  result: 'printed' | 'failed' | 'queued';
  /** From claim to result; null when the agent did not time it (the server failed the job). */
  ms: number | null;
  error: { code: string; message: string } | null;
}

/** A log line; job lines also carry the job's result (structurally still a LogLine). */
export interface RuntimeLogLine extends LogLine {
  job?: JobResult;
}

/** The surface the Electron shell drives; `AgentRuntime` in agent/core implements it. */
export interface AgentControl {
  start(): Promise<void>;
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
  status(): AgentStatus;
  retry(jobId: number): Promise<void>;
  reprint(jobId: number): Promise<void>;
  testPrint(route: string): Promise<void>;
  listPrinters(): Promise<PrinterInfo[]>;
  onStatus(listener: (status: AgentStatus) => void): () => void;
  onLog(listener: (line: LogLine) => void): () => void;
  /** The routes adopted after they were changed on the server (the console). */
  onRoutesAdopted?(listener: (routes: PrintRoute[]) => void): () => void;
}
