import { Conflict } from '../../domain-errors.ts';
import type { JobRow } from '../store/queue-store.ts';

/** Why an agent's report on a job it does not hold claimed is refused (409). */
export function notHeld(row: JobRow, agentUuid: string, action: string): Conflict {
  if (row.status === 'claimed' && row.agent_id !== agentUuid) {
    return new Conflict(
      `Job ${row.id} is held by another agent; only its holder may ${action} it.`,
    );
  }
  if (row.agent_id !== agentUuid) {
    return new Conflict(`Job ${row.id} is ${row.status} and not held by this agent.`);
  }
  return new Conflict(`Job ${row.id} is ${row.status}: there is no claim to ${action}.`);
}
