import { interruptedJobError } from '../journal.ts';
import { announceJobResult } from './job-lines.ts';
import type { RuntimeContext } from './runtime-context.ts';

/**
 * Turns what the journal holds after a crash into reports. A job still `spooling` may or may
 * not have come out of the printer: it is reported as interrupted, for a person to check and
 * retry or reprint, and never printed again by the agent on its own.
 */
export async function recoverJournal(context: RuntimeContext): Promise<void> {
  const { journal, outbox, status } = context;
  await journal.removeCrashLeftovers();
  const entries = await journal.readAll((file, error) =>
    status.log('error', `journal record ${file} is unreadable and was left as is: ${error}`),
  );
  for (const entry of entries) {
    const at = context.now().toISOString();
    if (entry.state === 'spooling') {
      await outbox.add({
        kind: 'error',
        job_id: entry.job_id,
        ...interruptedJobError,
        queued_at: at,
      });
      status.log(
        'warn',
        `job ${entry.job_id} (route ${entry.route}, printer ${entry.printer}) was being printed when the agent stopped; reported as ${interruptedJobError.code}`,
      );
      // The agent reports it failed, so it gets its job line like any failed job (a line per
      // job printed or failed, docs/agent.md) and shows among the recent jobs.
      announceJobResult(status, {
        jobId: entry.job_id,
        route: entry.route,
        title: entry.title,
        printer: entry.printer,
        result: 'failed',
        ms: Math.max(0, Date.parse(at) - Date.parse(entry.started_at)) || 0,
        error: { ...interruptedJobError },
      });
    } else if (entry.state === 'printed') {
      await outbox.add({
        kind: 'confirm',
        job_id: entry.job_id,
        printer: entry.printer,
        queued_at: at,
      });
    } else {
      const error = entry.error ?? { code: 'printer_error', message: 'failed' };
      await outbox.add({ kind: 'error', job_id: entry.job_id, ...error, queued_at: at });
    }
    await journal.remove(entry.job_id);
  }
}
