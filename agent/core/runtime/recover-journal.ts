import { interruptedJobError, type JournalEntry } from '../journal.ts';
import type { OutboxReport } from '../outbox.ts';
import { announceJobResult } from './job-lines.ts';
import type { RuntimeContext } from './runtime-context.ts';

/**
 * Turns what the journal holds after a crash into reports. A job still `spooling` may or may
 * not have come out of the printer: it is reported as interrupted, for a person to check and
 * retry or reprint, and never printed again by the agent on its own.
 *
 * Each entry also gets its job line (a line per job printed or failed, docs/agent.md): the
 * line is said after the journal entry is removed, so a run that crashed with an entry on
 * disk never said it.
 */
export async function recoverJournal(context: RuntimeContext): Promise<void> {
  const { journal, outbox, status } = context;
  await journal.removeCrashLeftovers();
  const entries = await journal.readAll((file, error) =>
    status.log('error', `journal record ${file} is unreadable and was left as is: ${error}`),
  );
  for (const entry of entries) {
    const at = context.now().toISOString();
    const error =
      entry.state === 'spooling'
        ? { ...interruptedJobError }
        : entry.state === 'failed'
          ? (entry.error ?? { code: 'printer_error', message: 'failed' })
          : null;
    const report: OutboxReport =
      error === null
        ? { kind: 'confirm', job_id: entry.job_id, printer: entry.printer, queued_at: at }
        : { kind: 'error', job_id: entry.job_id, ...error, queued_at: at };
    await outbox.add(report);
    if (entry.state === 'spooling') {
      status.log(
        'warn',
        `job ${entry.job_id} (route ${entry.route}, printer ${entry.printer}) was being printed when the agent stopped; reported as ${interruptedJobError.code}`,
      );
    }
    announceJobResult(status, {
      jobId: entry.job_id,
      route: entry.route,
      title: entry.title,
      printer: entry.printer,
      result: error === null ? 'printed' : 'failed',
      ms: elapsedMs(entry, at),
      error,
    });
    await journal.remove(entry.job_id);
  }
}

/** From the start of the print to its end (or to now, for one cut off). */
function elapsedMs(entry: JournalEntry, now: string): number {
  return Math.max(0, Date.parse(entry.ended_at ?? now) - Date.parse(entry.started_at)) || 0;
}
