import { backoffDelay, sleep } from '../backoff.ts';
import { sendReport } from '../outbox.ts';
import { announceLeaseLost, leaseExpiredCode } from './job-lines.ts';
import { noteRecentJobError } from './recent-jobs.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';

/** Delivers the reports in the outbox; backs off while the server is away. */
export async function outboxLoop(context: RuntimeContext, signal: AbortSignal): Promise<void> {
  let failures = 0;
  while (!signal.aborted) {
    if (context.outbox.size === 0) {
      await context.outboxWakeup.wait();
      continue;
    }
    const { lastError } = await deliverReports(context, signal);
    if (lastError === null) {
      failures = 0;
      continue;
    }
    if (signal.aborted) return;
    context.status.noteFailure(lastError);
    // Woken early by a heartbeat that got through: the server is back.
    await Promise.race([
      sleep(backoffDelay(context.reconnect, failures++), signal).catch(() => {}),
      context.outboxWakeup.wait(),
    ]);
  }
}

/** One pass over the outbox, oldest report first (the rules are in ReportOutbox.deliver). */
export async function deliverReports(context: RuntimeContext, signal: AbortSignal) {
  const { status } = context;
  const client = requireClient(context);
  const sender = {
    confirmJob: (id: number, body: { printer?: string }) => client.confirmJob(id, body, signal),
    reportJobError: (id: number, body: { message: string; code?: string }) =>
      client.reportJobError(id, body, signal),
    releaseJob: (id: number, body: { message: string; code: string }) =>
      client.releaseJob(id, body, signal),
    getJob: (id: number) => client.getJob(id, signal),
  };
  const result = await context.outbox.deliver(
    (report) => sendReport(sender, report),
    (report, delivery) => {
      if (delivery.result === 'delivered') {
        status.noteConnected();
        if (delivery.note) status.log('info', delivery.note);
      } else if (delivery.result === 'refused') {
        // A confirm refused because the lease ran out: printed, yet failed on the server. (An
        // error report meets a job failed already, which counts as delivered.)
        const job = delivery.job;
        if (
          report.kind === 'confirm' &&
          job?.error?.code === leaseExpiredCode &&
          announceLeaseLost(
            context,
            { jobId: job.id, route: job.route, title: job.title, printer: report.printer },
            'printed here, but the server had failed it already: its lease ran out before the confirm arrived; do not retry it',
          )
        ) {
          return;
        }
        status.log('warn', delivery.note);
        noteRecentJobError(status, report.job_id, delivery.note);
      }
    },
  );
  status.state.pendingReports = context.outbox.size;
  status.emit();
  return result;
}
