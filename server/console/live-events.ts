import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { PrintingService } from '../printing/index.ts';
import type { Storage } from '../storage/database.ts';
import { LiveNotices } from './live-notices.ts';
import { readCompanyVersion } from './read-company-version.ts';
import { SharedReads } from './shared-reads.ts';

type Listener = (version: string) => void;

interface Watched {
  listeners: Set<Listener>;
  version: string | undefined;
  reading: boolean;
  again: boolean;
}

/**
 * What the console's live pages listen to (`GET /events/stream`): per company, a version
 * (read-company-version.ts) announced to every open stream when it changes; the page then
 * reads what it shows again through the API.
 *
 * Woken three ways: at once by this process's own job changes (`PrintingService.onJobChange`,
 * the same commit hook that wakes waiting agents); at once, on PostgreSQL, by the other
 * instances' job changes (`LiveNotices`: a NOTIFY heard on the instance's LISTEN connection);
 * and by a poll every `pollMs` while a company has streams open. The poll is the fallback:
 * it carries the CLI's changes on SQLite, the changes made while the LISTEN connection was
 * down, and what no job change marks (an agent falling offline: its heartbeat simply
 * stops). One read per company, however many streams it has: 500 open consoles of one
 * company cost one read every `pollMs`, and a notice for one company reads no other's.
 */
export class LiveEvents {
  readonly #storage: Storage;
  readonly #printing: PrintingService;
  readonly #log: Logger;
  readonly #pollMs: number;
  readonly #versionKey: Buffer;
  readonly #companies = new Map<number, Watched>();
  #timer: NodeJS.Timeout | undefined;
  #stopJobs: (() => void) | undefined;
  readonly #notices: LiveNotices;
  /**
   * What the live pages read again at each change (the jobs page, the overview), shared by
   * the requests of one company that arrive together: one change, 20 tabs, two reads.
   */
  readonly reads = new SharedReads();

  constructor(deps: {
    storage: Storage;
    printing: PrintingService;
    log: Logger;
    /** The server's secret key: the versions are keyed with a key derived from it. */
    secretKey: Buffer;
    pollMs?: number;
  }) {
    this.#storage = deps.storage;
    // A key of its own, so that a version is never a MAC made with the key that seals
    // webhook secrets.
    this.#versionKey = createHmac('sha256', deps.secretKey)
      .update('console live versions')
      .digest();
    this.#printing = deps.printing;
    this.#log = deps.log;
    this.#pollMs = deps.pollMs ?? 250;
    this.#notices = new LiveNotices({
      storage: deps.storage,
      printing: deps.printing,
      log: deps.log,
      wake: (companyId) => this.#check(companyId),
      wakeAll: () => {
        for (const companyId of this.#companies.keys()) this.#check(companyId);
      },
    });
  }

  /** Hears and announces the instances' job changes (PostgreSQL; nothing on SQLite). */
  start(): Promise<void> {
    return this.#notices.start();
  }

  /** Listens to `listener` with each new version of the company's; returns the stop. */
  subscribe(companyId: number, listener: Listener): () => void {
    let watched = this.#companies.get(companyId);
    if (!watched) {
      watched = { listeners: new Set(), version: undefined, reading: false, again: false };
      this.#companies.set(companyId, watched);
    }
    watched.listeners.add(listener);
    this.#start();
    return () => {
      watched.listeners.delete(listener);
      if (watched.listeners.size === 0) this.#companies.delete(companyId);
      if (this.#companies.size === 0) this.#stop();
    };
  }

  /** The company's version now (the first event of a stream, and a resumed one's check). */
  current(companyId: number): Promise<string> {
    return readCompanyVersion(this.#storage.db, companyId, this.#printing, this.#versionKey);
  }

  async close(): Promise<void> {
    this.#companies.clear();
    this.#stop();
    await this.#notices.close();
  }

  #start(): void {
    if (this.#timer) return;
    this.#stopJobs = this.#printing.onJobChange((companyId) => this.#check(companyId));
    this.#timer = setInterval(() => {
      for (const companyId of this.#companies.keys()) this.#check(companyId);
    }, this.#pollMs);
    this.#timer.unref();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopJobs?.();
    this.#stopJobs = undefined;
  }

  /** Reads the version; a check asked for while one runs runs once more after it. */
  #check(companyId: number): void {
    const watched = this.#companies.get(companyId);
    if (!watched) return;
    if (watched.reading) {
      watched.again = true;
      return;
    }
    watched.reading = true;
    this.current(companyId)
      .then((version) => {
        if (version === watched.version) return;
        watched.version = version;
        for (const listener of watched.listeners) listener(version);
      })
      .catch((error: unknown) => this.#log.warn({ err: error }, 'console events: read failed'))
      .finally(() => {
        watched.reading = false;
        if (watched.again) {
          watched.again = false;
          this.#check(companyId);
        }
      });
  }
}
