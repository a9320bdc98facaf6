import { sleep } from '../backoff.ts';
import { announceLeaseLost } from './job-lines.ts';
import { adoptServerRoutes, routesChangedOnServer } from './route-sync.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';

/**
 * Every `heartbeat_seconds`: tells the server the agent is alive, whether it is paused, its
 * printers with their state, and which jobs it holds (in hand or with a report waiting), so
 * their leases are extended. A change of the printers is sent early, debounced. When the
 * answer says the routes changed on the server (the console), they are read and adopted.
 */
export async function heartbeatLoop(context: RuntimeContext, signal: AbortSignal): Promise<void> {
  const { status, inHand, outbox } = context;
  // What register sent; a heartbeat is due early when the printers differ from the last sent.
  let sent = JSON.stringify(status.state.printers);
  const printersChanged = () => JSON.stringify(status.state.printers) !== sent;
  while (!signal.aborted) {
    await nextBeat(context, printersChanged, signal);
    if (signal.aborted) return;
    try {
      const printers = status.state.printers;
      // Counted as sent even if this one fails: the next regular heartbeat carries the
      // printers anyway, and a server that is away must not get an early one every second.
      sent = JSON.stringify(printers);
      const held = [...new Set([...inHand, ...outbox.pending().map((r) => r.job_id)])];
      const result = await requireClient(context).heartbeat(
        { printers, paused: status.state.paused, held_job_ids: held.slice(0, 1000) },
        signal,
      );
      status.noteConnected();
      // A report waiting in the outbox hears of it from its 409, with the job as the server
      // has it; a job in hand only from here.
      for (const id of result.released_job_ids) {
        if (!inHand.has(id)) continue;
        const recent = status.state.recentJobs.find((job) => job.id === id);
        announceLeaseLost(
          context,
          {
            jobId: id,
            route: recent?.route ?? '-',
            title: recent?.title ?? null,
            printer: recent?.printer ?? null,
          },
          'the server took it back while this agent had it (its lease ran out) and fails it; check the printer before retrying it',
        );
      }
      // The server is back: the reports waiting need not wait for their backoff.
      if (outbox.size > 0) context.outboxWakeup.wake();
      if (routesChangedOnServer(context, result.routes_version)) {
        await adoptServerRoutes(context, signal);
      }
    } catch (error) {
      if (signal.aborted) return;
      status.noteFailure(error);
    }
  }
}

/**
 * Waits for the next heartbeat: the interval, or, once the printers changed, the debounce
 * (1 s by default), so that a burst of changes goes out as one heartbeat. Printers are read
 * every few seconds, which bounds early heartbeats to one per read.
 */
async function nextBeat(
  context: RuntimeContext,
  printersChanged: () => boolean,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + Math.max(1, context.intervals.heartbeat_seconds) * 1000;
  const debounceMs = context.options.printerReportDebounceMs ?? 1000;
  while (!signal.aborted) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return;
    if (printersChanged()) {
      await sleep(Math.min(debounceMs, remaining), signal).catch(() => {});
      return;
    }
    // The timer is cleared when the wake-up comes first: no timer outlives its wait.
    const timer = new AbortController();
    const onAbort = () => timer.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([
        sleep(remaining, timer.signal).catch(() => {}),
        context.heartbeatWakeup.wait(),
      ]);
    } finally {
      timer.abort();
      signal.removeEventListener('abort', onAbort);
    }
  }
}
