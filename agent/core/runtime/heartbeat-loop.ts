import { sleep } from '../backoff.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';

/**
 * Every `heartbeat_seconds`: tells the server the agent is alive, whether it is paused and
 * which jobs it holds (in hand or with a report waiting), so their leases are extended.
 */
export async function heartbeatLoop(context: RuntimeContext, signal: AbortSignal): Promise<void> {
  const { status, inHand, outbox } = context;
  while (!signal.aborted) {
    await sleep(Math.max(1, context.intervals.heartbeat_seconds) * 1000, signal).catch(() => {});
    if (signal.aborted) return;
    try {
      const held = [...new Set([...inHand, ...outbox.pending().map((r) => r.job_id)])];
      const result = await requireClient(context).heartbeat(
        { paused: status.state.paused, held_job_ids: held.slice(0, 1000) },
        signal,
      );
      status.noteConnected();
      for (const id of result.released_job_ids) {
        if (inHand.has(id)) {
          status.log(
            'warn',
            `the server no longer gives job ${id} to this agent (its lease ran out)`,
          );
        }
      }
      // The server is back: the reports waiting need not wait for their backoff.
      if (outbox.size > 0) context.outboxWakeup.wake();
    } catch (error) {
      if (signal.aborted) return;
      status.noteFailure(error);
    }
  }
}
