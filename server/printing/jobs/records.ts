import {
  type ClaimedJob,
  type JobDetail,
  type JobRecord,
  type PrintOptions,
  templateDataType,
} from '../../../shared/printing.ts';
import type { JobRow, TrailRow } from '../store/queue-store.ts';

/**
 * A job as the API shows it. `wait_reason` is null here: it is derived from the agents' state
 * when a job is read (`withWaitReasons`, agents/route-wait-reasons.ts), not stored.
 */
export function toJobRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    route: row.route,
    title: row.title,
    status: row.status,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    copies: row.copies,
    priority: row.priority,
    options: JSON.parse(row.options) as PrintOptions,
    attempts: row.attempts,
    agent_id: row.agent_id,
    printer: row.printer,
    error: row.error_message === null ? null : { message: row.error_message, code: row.error_code },
    reprint_of: row.reprint_of,
    created_at: row.created_at,
    updated_at: row.updated_at,
    claimed_at: row.claimed_at,
    printed_at: row.printed_at,
    expires_at: row.expires_at,
    lease_expires_at: row.lease_expires_at,
    wait_reason: null,
  };
}

/** A job with its trail of events, as `GET /printing/jobs/{job}` shows it. */
export function toJobDetail(row: JobRow, trail: TrailRow[]): JobDetail {
  return {
    ...toJobRecord(row),
    events: trail.map((event) => ({
      from: event.from_status,
      to: event.to_status,
      agent_id: event.agent_id,
      message: event.message,
      at: event.at,
    })),
  };
}

/** The claimed job as the agent gets it: the job with its document's content. */
export function toClaimedJob(row: JobRow, content: Buffer): ClaimedJob {
  const record = toJobRecord(row);
  if (record.content_type === templateDataType) {
    throw new Error(`job ${row.id} was claimed without being rendered`);
  }
  const contentType = record.content_type;
  return {
    ...record,
    content_type: contentType,
    document: {
      content_type: contentType,
      size: record.size,
      sha256: record.sha256,
      content_base64: Buffer.from(content).toString('base64'),
    },
  };
}
