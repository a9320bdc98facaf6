import { EventEmitter } from 'node:events';

/**
 * Tells waiting long-polls that a job was queued on a route. The in-process
 * implementation serves one server; a PostgreSQL one would send `NOTIFY print_jobs,
 * '<company>:<route>'` in `jobQueued` and, from one `LISTEN print_jobs` connection per
 * instance, emit what it hears to its local waiters (docs/printing.md).
 */
export interface JobNotifier {
  /** A job became claimable on this route (created, retried, reprinted, given back). */
  jobQueued(companyId: number, route: string): void;
  /**
   * Calls `listener` whenever a job is queued on one of `routes` of the company, until the
   * returned function is called.
   */
  subscribe(companyId: number, routes: readonly string[], listener: () => void): () => void;
  close(): void;
}

const keyOf = (companyId: number, route: string) => `${companyId}\u0000${route}`;

export class InProcessJobNotifier implements JobNotifier {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per waiting request and route: hundreds are normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  jobQueued(companyId: number, route: string): void {
    this.emitter.emit(keyOf(companyId, route));
  }

  subscribe(companyId: number, routes: readonly string[], listener: () => void): () => void {
    const keys = routes.map((route) => keyOf(companyId, route));
    for (const key of keys) this.emitter.on(key, listener);
    return () => {
      for (const key of keys) this.emitter.off(key, listener);
    };
  }

  close(): void {
    this.emitter.removeAllListeners();
  }
}
