import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { PrintRoute } from '../../../shared/printing.ts';
import type { AgentControl, AgentStatus, LogLine } from '../../core/status.ts';
import type { CreateAgentControl } from './agent-host.ts';
import { type AgentLogFile, redactSecrets } from './log-file.ts';

export interface AgentConnectionConfig {
  serverUrl: string;
  token: string;
  routes: Record<string, string>;
  /** Each route's printer profile, where one is set. */
  profiles?: Record<string, PrinterProfile>;
}

export interface AgentSupervisorOptions {
  createControl: CreateAgentControl;
  stateDir: string;
  logFile: AgentLogFile | null;
  /**
   * Keeps the routes the core adopted from the server (edited in the console) where the
   * settings keep routes; the core is not restarted for it.
   */
  keepRoutes?: (routes: PrintRoute[]) => void;
  /** Lines kept for the window's log view. */
  logTailSize?: number;
  now?: () => Date;
}

type Listener<T> = (value: T) => void;

/**
 * Runs the agent core inside the main process: starts it from the saved settings, restarts it
 * when they change, and fans its status and log out to the tray and the window. Every log line
 * passes through here, so this is where the token is taken out of them.
 */
export class AgentSupervisor {
  readonly #options: AgentSupervisorOptions;
  #control: AgentControl | null = null;
  #unsubscribe: Array<() => void> = [];
  #token: string | null = null;
  #lastStatus: AgentStatus | null = null;
  readonly #logTail: LogLine[] = [];
  readonly #statusListeners = new Set<Listener<AgentStatus | null>>();
  readonly #logListeners = new Set<Listener<LogLine>>();
  /** Reconfigurations run one after another so two runtimes never live at once. */
  #queue: Promise<void> = Promise.resolve();

  constructor(options: AgentSupervisorOptions) {
    this.#options = options;
  }

  get control(): AgentControl | null {
    return this.#control;
  }

  status(): AgentStatus | null {
    return this.#lastStatus;
  }

  logTail(): LogLine[] {
    return [...this.#logTail];
  }

  onStatus(listener: Listener<AgentStatus | null>): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  onLog(listener: Listener<LogLine>): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  log(level: LogLine['level'], message: string): void {
    this.#appendLog({ at: (this.#options.now?.() ?? new Date()).toISOString(), level, message });
  }

  /** Stops the running core, if any, and starts one for `config` (none when it is null). */
  configure(config: AgentConnectionConfig | null): Promise<void> {
    const next = this.#queue.then(() => this.#replace(config));
    this.#queue = next.catch(() => {});
    return next;
  }

  stop(): Promise<void> {
    return this.configure(null);
  }

  async #replace(config: AgentConnectionConfig | null): Promise<void> {
    const previous = this.#control;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    this.#control = null;
    if (previous) {
      try {
        await previous.stop();
      } catch (error) {
        this.log('warn', `The agent did not stop cleanly: ${errorMessage(error)}`);
      }
    }
    if (config === null) {
      this.#token = null;
      this.#publishStatus(null);
      return;
    }

    this.#token = config.token;
    let control: AgentControl;
    try {
      control = this.#options.createControl({
        serverUrl: config.serverUrl,
        token: config.token,
        stateDir: this.#options.stateDir,
        routes: config.routes,
        ...(config.profiles && { profiles: config.profiles }),
      });
    } catch (error) {
      this.log('error', `The agent could not be created: ${errorMessage(error)}`);
      this.#publishStatus(null);
      return;
    }
    this.#control = control;
    this.#unsubscribe.push(
      control.onStatus((status) => this.#publishStatus(status)),
      control.onLog((line) => this.#appendLog(line)),
    );
    const keep = this.#options.keepRoutes;
    if (keep && control.onRoutesAdopted) {
      this.#unsubscribe.push(control.onRoutesAdopted((routes) => keep(routes)));
    }
    this.#publishStatus(control.status());
    try {
      await control.start();
    } catch (error) {
      this.log('error', `The agent did not start: ${errorMessage(error)}`);
    }
  }

  #publishStatus(status: AgentStatus | null): void {
    this.#lastStatus = status;
    for (const listener of this.#statusListeners) listener(status);
  }

  #appendLog(line: LogLine): void {
    const clean = {
      ...line,
      message: redactSecrets(line.message, this.#token ? [this.#token] : []),
    };
    this.#logTail.push(clean);
    const limit = this.#options.logTailSize ?? 200;
    if (this.#logTail.length > limit) this.#logTail.splice(0, this.#logTail.length - limit);
    this.#options.logFile?.append(clean);
    for (const listener of this.#logListeners) listener(clean);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
