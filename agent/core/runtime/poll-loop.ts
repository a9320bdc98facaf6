import type { ClaimedJob } from '../../../shared/printing.ts';
import { backoffDelay, sleep } from '../backoff.ts';
import { handleJob } from './handle-job.ts';
import { logMisconfiguredRoutes, printableRoutes } from './printable-routes.ts';
import { rememberJob } from './recent-jobs.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';

const notPrintedOnStopError = {
  code: 'agent_stopped',
  message: 'the agent stopped before printing this job; it was not printed, retry it',
} as const;

/**
 * Long-polls for the next job and prints it, one at a time, until stop(); waits while paused.
 * Claims only on the routes whose printers can print now (`printableRoutes`): with none, it
 * does not ask, and the jobs wait on the server (queued, saying why) until the printer watch
 * sees a printer ready again and wakes it.
 */
export async function pollLoop(context: RuntimeContext, signal: AbortSignal): Promise<void> {
  const { status } = context;
  let failures = 0;
  let holding = false;
  while (!signal.aborted) {
    if (status.state.paused) {
      await context.pollWakeup.wait();
      continue;
    }
    const { claimOn, waiting } = printableRoutes(context);
    logMisconfiguredRoutes(context, waiting);
    if (claimOn !== undefined && claimOn.length === 0) {
      if (!holding) {
        const why = [...waiting].map(([route, reason]) => `${route}: ${reason.message}`);
        status.log('warn', `no route can print now (${why.join('; ')}); jobs wait on the server`);
      }
      holding = true;
      await context.pollWakeup.wait();
      continue;
    }
    if (holding) status.log('info', 'a route can print again; taking jobs');
    holding = false;
    // Only stop() aborts a long-poll: a job the server claims just as the agent hangs up
    // would reach nobody and wait for its lease to run out. Pausing lets the poll finish.
    const wait = Math.min(30, Math.max(1, context.intervals.long_poll_wait_seconds));
    const polledAt = performance.now();
    let job: ClaimedJob | null;
    try {
      job = await requireClient(context).claimNextJob(wait, signal, claimOn);
      failures = 0;
      status.noteConnected();
    } catch (error) {
      if (signal.aborted) return;
      status.noteFailure(error);
      await sleep(backoffDelay(context.reconnect, failures++), signal).catch(() => {});
      continue;
    }
    if (job === null) {
      // A server answering "none" at once, whatever the wait, must not make this a busy loop.
      if (performance.now() - polledAt < 500) await sleep(1000, signal).catch(() => {});
      continue;
    }
    if (status.state.paused && !(await holdWhilePaused(context, job, signal))) return;
    await handleJob(context, job);
  }
}

/**
 * A job that a poll brought as the agent paused is kept, unprinted, until resume (its lease
 * is extended by heartbeats meanwhile). If the agent stops first, the job is reported as
 * not printed, which is certain, so retrying it is safe. Returns false on stop.
 */
async function holdWhilePaused(
  context: RuntimeContext,
  job: ClaimedJob,
  signal: AbortSignal,
): Promise<boolean> {
  const { status, inHand } = context;
  status.log('info', `job ${job.id} arrived as the agent paused; it prints on resume`);
  inHand.add(job.id);
  rememberJob(status, {
    id: job.id,
    route: job.route,
    title: job.title,
    status: 'claimed',
    printer: null,
    error: null,
  });
  while (status.state.paused && !signal.aborted) await context.pollWakeup.wait();
  inHand.delete(job.id);
  if (!signal.aborted) return true;
  await context.outbox
    .add({
      kind: 'error',
      job_id: job.id,
      ...notPrintedOnStopError,
      queued_at: context.now().toISOString(),
    })
    .catch((error: unknown) => status.log('error', `job ${job.id}: ${(error as Error).message}`));
  status.log('warn', `job ${job.id} was not printed: the agent stopped while paused`);
  return false;
}
