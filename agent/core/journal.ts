import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  readJsonRecords,
  removeCrashLeftovers,
  removeFileDurably,
  writeFileAtomic,
} from './atomic-file.ts';

/**
 * The job journal: one small file per job the agent holds, written *before* the document
 * goes to the spooler and again when the spooler is done with it. After a crash an entry
 * still in `spooling` means "the printer may or may not have printed it": the runtime
 * reports it as `agent_interrupted` and never prints it again by itself (at most once;
 * docs/agent.md, "Crash behaviour"). Entries in `printed`/`failed` whose report had not reached the outbox yet are
 * reported as what they were.
 */
export const journalEntrySchema = z.object({
  job_id: z.number().int().min(1),
  route: z.string(),
  title: z.string().nullable(),
  printer: z.string(),
  state: z.enum(['spooling', 'printed', 'failed']),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  error: z.object({ message: z.string(), code: z.string() }).nullable(),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;

export const interruptedJobError = {
  code: 'agent_interrupted',
  message: 'agent stopped while printing; check the printer, then retry or reprint',
} as const;

export class JobJournal {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'journal');
  }

  /** Deletes half-written temp files of a previous run; call at start-up, before any write. */
  async removeCrashLeftovers(): Promise<void> {
    await removeCrashLeftovers(this.dir);
  }

  /** Entries left by the previous run (empty after a clean stop). */
  async readAll(onBadRecord: (file: string, error: unknown) => void): Promise<JournalEntry[]> {
    return readJsonRecords(this.dir, (value) => journalEntrySchema.parse(value), onBadRecord);
  }

  /** Must resolve before the document is handed to the spooler. */
  async beginSpooling(
    entry: Pick<JournalEntry, 'job_id' | 'route' | 'title' | 'printer'>,
    now: Date,
  ): Promise<JournalEntry> {
    const written: JournalEntry = {
      ...entry,
      state: 'spooling',
      started_at: now.toISOString(),
      ended_at: null,
      error: null,
    };
    await this.write(written);
    return written;
  }

  async finish(
    entry: JournalEntry,
    result: { state: 'printed' } | { state: 'failed'; error: { message: string; code: string } },
    now: Date,
  ): Promise<JournalEntry> {
    const written: JournalEntry = {
      ...entry,
      state: result.state,
      ended_at: now.toISOString(),
      error: result.state === 'failed' ? result.error : null,
    };
    await this.write(written);
    return written;
  }

  /** Called once the job's report is safe in the outbox. */
  async remove(jobId: number): Promise<void> {
    await removeFileDurably(this.pathOf(jobId));
  }

  private async write(entry: JournalEntry): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.pathOf(entry.job_id), JSON.stringify(entry));
  }

  private pathOf(jobId: number): string {
    return join(this.dir, `${jobId}.json`);
  }
}
