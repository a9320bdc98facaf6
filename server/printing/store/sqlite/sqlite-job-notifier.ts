import type { Storage } from '../../../storage/database.ts';
import { InProcessJobNotifier } from '../../long-poll/job-notifier.ts';

/** How often, while agents wait, SQLite is asked whether another process wrote (the CLI). */
export const externalWriteCheckMs = 250;

/**
 * The notifier of the one server process on a SQLite file: in-process, since that process
 * queues (and so hears of) every job but those another process writes to the same file
 * (`shopdesk job create`). Those reach no in-process notifier: SQLite's `data_version` (the
 * mark the token cache uses) changes only when another connection commits, so while agents
 * wait it is read every 250 ms and, when it moved, every waiter tries a claim once. This
 * reads one pragma, never the jobs.
 */
export class SqliteJobNotifier extends InProcessJobNotifier {
  readonly #storage: Storage;
  #watch: NodeJS.Timeout | undefined;

  constructor(storage: Storage) {
    super();
    this.#storage = storage;
  }

  override async start(): Promise<void> {
    const storage = this.#storage;
    let mark = storage.externalChangeMark();
    this.#watch = setInterval(() => {
      if (!this.hasWaiters()) return;
      const now = storage.externalChangeMark();
      if (now === mark) return;
      mark = now;
      this.wakeAll();
    }, externalWriteCheckMs);
    this.#watch.unref();
  }

  override async close(): Promise<void> {
    clearInterval(this.#watch);
    this.#watch = undefined;
    await super.close();
  }
}
