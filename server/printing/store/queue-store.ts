import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { ContentType, HistoryQuery, JobStatus } from '../../../shared/printing.ts';
import type { WaitReason } from '../../../shared/wait-reasons.ts';
import type { Db } from '../../storage/db.ts';
import type { PrintingTables } from '../../storage/tables/printing.ts';
import type { OutboxRow } from '../../webhooks/index.ts';
import type { JobNotifier } from '../long-poll/job-notifier.ts';

/**
 * The print queue's storage: one interface, one implementation per database
 * (`sqlite/sqlite-queue-store.ts`, `postgres/postgres-queue-store.ts`). What sits above it —
 * the job operations (`../jobs/`), the routes and the long-poll — asks it plainly ("claim for
 * this agent", "confirm this job") and never knows which database runs, nor how a call was
 * written: batching, group commit and one-statement units of work are the store's own.
 *
 * The rules every implementation keeps:
 * - Every method takes the `db` it runs on: the database itself, or the transaction of a
 *   larger unit of work (an idempotent request stores its answer in its write's
 *   transaction). A write given the database is atomic on its own.
 * - Every change of a job's status writes its row of `print_job_events` (the trail
 *   `GET /printing/jobs/{job}` shows) in the change's own commit, and hands the change to
 *   the store's `JobChanges` (below): in the commit, what must commit with it (the webhook
 *   outbox), and after the commit, the announcement (the waiting agents' wake-up).
 * - A job that becomes claimable (created, reprinted, retried, a claim given back) is
 *   announced to every process that may have agents waiting, once it has committed and
 *   never before (docs/printing.md, "Notifier").
 * - Guarded writes answer `undefined` when the job was not in the state they expect (not
 *   queued, not held by this agent): the caller reads the job to say why.
 */
export interface PrintQueueStore {
  /** Queues a new job: its document (stored once per company and content), the job, its event. */
  create(db: Db, job: NewJob): Promise<JobRow>;
  /** `printed | failed →` a new queued job with the same document and `reprint_of` set. */
  reprint(db: Db, reprint: Reprint): Promise<JobRow>;
  /**
   * Claims for the agent the best job queued on its enabled routes (`bestQueuedJob`, once
   * per database): the highest priority, then the oldest, not past its expiry. Its status,
   * holder, claim time, lease end and attempts change, its event is written and its
   * document read, in one commit; `undefined` when none is queued.
   */
  claim(db: Db, request: ClaimRequest): Promise<StoredClaim | undefined>;
  /**
   * A claim whose answer could not be delivered goes back to the queue as if never made
   * (attempts restored, its event deleted), if the agent still holds it; announced as queued.
   */
  giveBack(db: Db, claim: ClaimGivenBack): Promise<boolean>;
  /** The holder's `claimed → printed`; `undefined` when the agent does not hold the job claimed. */
  confirm(db: Db, request: ConfirmRequest): Promise<JobRow | undefined>;
  /** The holder's `claimed → failed`, with its message and code; `undefined` as for `confirm`. */
  fail(db: Db, request: FailRequest): Promise<JobRow | undefined>;
  /**
   * `from → queued`, same id (a retry; a held job its agent gives back): only while the job
   * is still `from` (and held by `heldBy`, when given).
   */
  requeue(db: Db, request: Requeue): Promise<JobRow | undefined>;
  /** `queued → cancelled`: only while the job is still queued. */
  cancel(db: Db, request: Cancel): Promise<JobRow | undefined>;
  /** Fails the claims whose lease ran out and expires the queued jobs past their time. */
  sweep(db: Db, now: string, heldSince: string | null): Promise<SweptJobs>;
  /** Extends the leases of the jobs the agent still holds, unless already run out; their ids. */
  extendLeases(db: Db, request: LeaseExtension): Promise<number[]>;
  read(db: Db, companyId: number, jobId: number): Promise<JobRow | undefined>;
  /** The bytes of the job's document (a template job's data until it is rendered). */
  content(db: Db, companyId: number, jobId: number): Promise<Buffer | undefined>;
  /**
   * A template job rendered for the agent that claimed it: the bytes become its document
   * (docs/templates.md); `undefined` unless the agent still holds it claimed.
   */
  recordRendering(db: Db, rendered: Rendered): Promise<JobRow | undefined>;
  /** The job's events, in order. */
  trail(db: Db, jobId: number): Promise<TrailRow[]>;
  /** The company's jobs, newest first, filtered and paginated as `GET /printing/history`. */
  list(db: Db, companyId: number, query: HistoryQuery): Promise<{ rows: JobRow[]; total: number }>;
  /** The routes on which the company has jobs queued. */
  queuedRoutes(db: Db, companyId: number): Promise<string[]>;
  /**
   * The id of the company's newest job event (0: none): it moves whenever one of its jobs
   * changes status (the console's live marks, `../read-change-marks.ts`).
   */
  newestEvent(db: Db, companyId: number): Promise<number>;
  /**
   * The notifier of the agents waiting in this process, which also hears of the jobs other
   * processes queue (SQLite: the CLI, through the file's `data_version`; PostgreSQL: every
   * instance and the CLI, through LISTEN/NOTIFY).
   */
  openNotifier(log: Logger): JobNotifier;
}

/**
 * The one place a job's change of status is announced, whichever store made it. The store
 * calls it; the print queue's service implements it (`../jobs/job-changes.ts`).
 */
export interface JobChanges {
  /**
   * What the changes of `kind` in these companies write besides themselves, read before
   * their unit of work begins: the webhook outbox rows of the endpoints that take them
   * (from the subscriptions' cache: no query once cached). The store writes them in the
   * changes' own commit.
   */
  outboxFor(db: Db, companyIds: readonly number[], kind: JobChangeKind): Promise<ChangeOutbox>;
  /**
   * After the change has committed (in this process): a queued job wakes the agents waiting
   * here for its route. Must not throw: the change has committed.
   */
  committed(change: JobChange): void;
}

/** The outbox rows a batch of changes writes in its unit of work (`JobChanges.outboxFor`). */
export interface ChangeOutbox {
  /** Whether any row is due: some endpoint takes these changes. */
  readonly due: boolean;
  /** The rows of these changes: one event each, for each endpoint that takes it. */
  rowsOf(changes: readonly JobChange[]): OutboxRow[];
  /** After the rows committed: the dispatcher is told they are due. */
  written(): void;
}

/** What happened to a job: its new status, as a webhook event names it, or a return to the queue. */
export type JobChangeKind =
  | 'created'
  | 'claimed'
  | 'printed'
  | 'failed'
  | 'expired'
  | 'cancelled'
  /** Retried, or a claim given back: queued again under its id (no webhook event). */
  | 'requeued'
  /** Given back unprinted by its agent, its printer unable to print now (`print_job.waiting`). */
  | 'released'
  /** Still queued, past the notice threshold (`print_job.held`): announced, not changed. */
  | 'held';

export interface JobChange {
  kind: JobChangeKind;
  /** The job as the change left it. */
  row: JobRow;
  /** Why a `released` job waits: its event carries it. */
  waitReason?: WaitReason;
}

export type JobRow = Selectable<PrintingTables['print_jobs']>;

/** A row of a job's trail (`print_job_events`). */
export interface TrailRow {
  from_status: JobStatus | null;
  to_status: JobStatus;
  agent_id: string | null;
  message: string | null;
  at: string;
}

/** A new job, as the store writes it. */
export interface NewJob {
  companyId: number;
  content: Buffer;
  route: string;
  title: string | null;
  contentType: JobRow['content_type'];
  copies: number;
  priority: number;
  /** The print options, as JSON text. */
  options: string;
  createdAt: string;
  expiresAt: string | null;
}

/** A claimed template job's bytes, rendered for the claiming agent's printer. */
export interface Rendered {
  companyId: number;
  jobId: number;
  agentUuid: string;
  content: Buffer;
  contentType: ContentType;
  now: string;
}

export interface Reprint {
  original: JobRow;
  createdAt: string;
  expiresAt: string | null;
}

/** One agent's claim: who claims, and the claim's time and lease end. */
export interface ClaimRequest {
  companyId: number;
  agentRowId: number;
  agentUuid: string;
  now: string;
  lease: string;
  /**
   * Only these of the agent's enabled routes (those whose printers can print now, as the
   * agent says); absent: all of them.
   */
  routes?: readonly string[] | undefined;
}

/** A claimed job: its row, its document's content, and the id of the claim's event. */
export interface StoredClaim {
  row: JobRow;
  content: Buffer;
  eventId: number;
}

export interface ClaimGivenBack {
  companyId: number;
  agentUuid: string;
  jobId: number;
  eventId: number;
}

export interface ConfirmRequest {
  jobId: number;
  companyId: number;
  agentUuid: string;
  printer: string | null;
  now: string;
}

export interface FailRequest {
  jobId: number;
  companyId: number;
  agentUuid: string;
  message: string;
  code: string | null;
  now: string;
}

export interface Requeue {
  companyId: number;
  jobId: number;
  /** The status the job must still have. */
  from: JobStatus;
  /** The agent that asked, for the event; null for an integrator. */
  agentId: string | null;
  expiresAt: string | null;
  now: string;
  /** A claimed job given back: only while this agent holds it. */
  heldBy?: string;
  /** The event's message; `retry` when left out. */
  message?: string;
  /**
   * A held job its agent gives back unprinted because its printer cannot print now: why it
   * waits (the change is `released`, sent as `print_job.waiting`).
   */
  waitReason?: WaitReason;
}

export interface Cancel {
  companyId: number;
  jobId: number;
  now: string;
}

export interface LeaseExtension {
  companyId: number;
  agentUuid: string;
  jobIds: number[];
  lease: string;
  now: string;
}

export interface SweptJobs {
  /** Claimed jobs whose lease ran out: now `failed` with code `lease_expired`. */
  leaseExpired: JobRow[];
  /** Queued jobs past their `expires_at`: now `expired`. */
  expired: JobRow[];
  /** Queued jobs waiting past the notice threshold, announced now (`print_job.held`). */
  held: JobRow[];
}
