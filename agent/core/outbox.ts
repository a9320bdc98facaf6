import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { JobRecord } from '../../shared/printing.ts';
import {
  readJsonRecords,
  removeCrashLeftovers,
  removeFileDurably,
  writeFileAtomic,
} from './atomic-file.ts';

/**
 * The report outbox: every confirm and error report is written here first and removed only
 * once the server took it, so that reports survive the server being away and the agent
 * being restarted (docs/agent.md, "The outbox"). One file per job: a job has one report.
 */
export const outboxReportSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('confirm'),
    job_id: z.number().int().min(1),
    printer: z.string().nullable(),
    queued_at: z.string(),
  }),
  z.object({
    kind: z.literal('error'),
    job_id: z.number().int().min(1),
    message: z.string().min(1),
    code: z.string(),
    queued_at: z.string(),
  }),
  /** Given back unprinted: its printer cannot print now; the server queues it again. */
  z.object({
    kind: z.literal('release'),
    job_id: z.number().int().min(1),
    message: z.string().min(1),
    code: z.string().min(1),
    queued_at: z.string(),
  }),
]);
export type OutboxReport = z.infer<typeof outboxReportSchema>;

/** What became of one delivery attempt. */
export type DeliveryResult =
  /** The server took it (2xx), or a 409 showed the job already in the reported state. */
  | { result: 'delivered'; note?: string }
  /**
   * The server will never take it (409 for another state, 404, 422): kept no longer. After a
   * 409, `job` is the job as the server has it (failed `lease_expired`: its lease ran out).
   */
  | { result: 'refused'; note: string; job?: JobRecord }
  /** Not now (network, 5xx, 429, 401): try again later. */
  | { result: 'later'; error: unknown };

export class ReportOutbox {
  readonly dir: string;
  private readonly reports = new Map<number, OutboxReport>();

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'outbox');
  }

  /** Loads what the previous run could not deliver; at start-up, before any add. */
  async load(onBadRecord: (file: string, error: unknown) => void): Promise<number> {
    await removeCrashLeftovers(this.dir);
    const stored = await readJsonRecords(
      this.dir,
      (value) => outboxReportSchema.parse(value),
      onBadRecord,
    );
    for (const report of stored) this.reports.set(report.job_id, report);
    return this.reports.size;
  }

  get size(): number {
    return this.reports.size;
  }

  has(jobId: number): boolean {
    return this.reports.has(jobId);
  }

  /** Oldest first, so the server hears about jobs in the order they ended. */
  pending(): OutboxReport[] {
    return [...this.reports.values()].sort((a, b) => a.queued_at.localeCompare(b.queued_at));
  }

  /**
   * Persists a report; resolves once it is on disk. A job already holding a report keeps the
   * first one: crash recovery may offer a report again for a job that had one.
   */
  async add(report: OutboxReport): Promise<boolean> {
    // A job given back and claimed again (the release's answer was lost): the new report wins.
    if (this.reports.has(report.job_id) && this.reports.get(report.job_id)?.kind !== 'release') {
      return false;
    }
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.pathOf(report.job_id), JSON.stringify(report));
    this.reports.set(report.job_id, report);
    return true;
  }

  /**
   * Sends pending reports in order until one has to wait (the server is away: sending the
   * rest now would fail the same way). Returns how many left the outbox.
   */
  async deliver(
    send: (report: OutboxReport) => Promise<DeliveryResult>,
    onResult: (report: OutboxReport, result: DeliveryResult) => void = () => {},
  ): Promise<{ removed: number; waiting: number; lastError: unknown }> {
    let removed = 0;
    for (const report of this.pending()) {
      const result = await send(report);
      onResult(report, result);
      if (result.result === 'later') {
        return { removed, waiting: this.reports.size, lastError: result.error };
      }
      await removeFileDurably(this.pathOf(report.job_id));
      this.reports.delete(report.job_id);
      removed++;
    }
    return { removed, waiting: this.reports.size, lastError: null };
  }

  private pathOf(jobId: number): string {
    return join(this.dir, `${jobId}.json`);
  }
}

/** The part of the API client a delivery needs. */
export interface ReportSender {
  confirmJob(jobId: number, body: { printer?: string }): Promise<JobRecord>;
  reportJobError(jobId: number, body: { message: string; code?: string }): Promise<JobRecord>;
  releaseJob(jobId: number, body: { message: string; code: string }): Promise<JobRecord>;
  getJob(jobId: number): Promise<JobRecord>;
}

/** Error shape the sender throws for an HTTP answer (see ApiError). */
interface HttpFailure {
  status: number;
  message: string;
}

function httpStatusOf(error: unknown): HttpFailure | null {
  if (
    error !== null &&
    typeof error === 'object' &&
    'status' in error &&
    typeof error.status === 'number' &&
    'message' in error &&
    typeof error.message === 'string'
  ) {
    return { status: error.status, message: error.message };
  }
  return null;
}

/**
 * Delivers one report and classifies the answer. A 409 is a state conflict that retrying
 * cannot fix; reading the job tells whether it means "already done" (a report that reached
 * the server before a crash or a lost answer) or "not yours any more" (the lease ran out).
 */
export async function sendReport(
  sender: ReportSender,
  report: OutboxReport,
): Promise<DeliveryResult> {
  try {
    if (report.kind === 'confirm') {
      await sender.confirmJob(report.job_id, report.printer ? { printer: report.printer } : {});
    } else if (report.kind === 'release') {
      await sender.releaseJob(report.job_id, { message: report.message, code: report.code });
    } else {
      await sender.reportJobError(report.job_id, { message: report.message, code: report.code });
    }
    return { result: 'delivered' };
  } catch (error) {
    const failure = httpStatusOf(error);
    if (failure === null || failure.status >= 500 || failure.status === 429) {
      return { result: 'later', error };
    }
    // 401/403: the token may be mended in the settings; the report must not be lost meanwhile.
    if (failure.status === 401 || failure.status === 403 || failure.status === 408) {
      return { result: 'later', error };
    }
    if (failure.status === 409) {
      const wanted = { confirm: 'printed', error: 'failed', release: 'queued' }[report.kind];
      try {
        const job = await sender.getJob(report.job_id);
        const code = job.error?.code ? ` (${job.error.code})` : '';
        if (job.status === wanted) {
          return { result: 'delivered', note: `job ${report.job_id} was already ${wanted}${code}` };
        }
        return {
          result: 'refused',
          note: `server refused the ${report.kind} report of job ${report.job_id}: it is ${job.status}${code} (${failure.message})`,
          job,
        };
      } catch (readError) {
        const readFailure = httpStatusOf(readError);
        if (readFailure === null || readFailure.status >= 500 || readFailure.status === 429) {
          return { result: 'later', error: readError };
        }
      }
    }
    return {
      result: 'refused',
      note: `server refused the ${report.kind} report of job ${report.job_id}: ${failure.status} ${failure.message}`,
    };
  }
}
