import { availableParallelism } from 'node:os';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { PreviewFormat } from '../../shared/templates.ts';
import type { RenderLimits } from '../config.ts';
import { Busy, InvalidFields, invalidField } from '../domain-errors.ts';
import { FairQueue } from './fair-queue.ts';
import type { Rendering } from './render/rendering.ts';
import type { TemplateSource } from './render-document.ts';
import type { RenderOutcome, RenderTask } from './render-thread.ts';

/**
 * Where every template is rendered: a small pool of threads, never the event loop
 * (docs/templates.md, "Limits"; docs/architecture.md says why piscina). ReceiptLine's layout
 * and drawing are synchronous and grow faster than their input: on the event loop, one
 * render held every request of the server for seconds. Here:
 * - a render has a time budget: past it, its thread is ended (piscina terminates the worker
 *   of an aborted task) and a fresh one takes its place; the render is a 422 naming the
 *   budget (at a claim, the job fails with `template_render_failed`);
 * - a thread has a memory limit (worker `resourceLimits`): a render past it ends the thread
 *   the same way, a 422 naming the limit;
 * - renders wait in a queue per company, served in turn (`FairQueue`), so one company's
 *   slow renders never keep another's waiting behind them; a company with
 *   `queuedPerCompany` previews waiting is refused more (`Busy`: a 429 with Retry-After).
 *   A claim is never refused for that: it waits its company's turn (an agent claims one job
 *   at a time);
 * - the threads run at the lowest priority (nice 19): a render that competes for a core with
 *   the event loop gives way to it (at nice 5 the flood test's reads waited more).
 * The pool, its threads and what they load (piscina, ReceiptLine, resvg…) come with the
 * first render, never with the server's start.
 */

export const defaultRenderLimits: RenderLimits = {
  threads: Math.min(2, availableParallelism()),
  budgetMs: 10_000,
  memoryMb: 256,
  queuedPerCompany: 8,
  niceness: 19,
};

/** Seconds a refused preview is asked to wait (`Retry-After`). */
export const busyRetrySeconds = 1;

/** What the domain operations render with: `render-pool.ts` in a server. */
export interface DocumentRenderer {
  /**
   * The template rendered with the data for the profile, in `format`, as `renderDocument`
   * does, on a render thread, in `companyId`'s turn. `claim`: an agent's claim waits for its
   * turn and is never refused for a full queue.
   */
  render(request: RenderRequest): Promise<Rendering>;
  close(): Promise<void>;
}

export interface RenderRequest {
  companyId: number;
  template: TemplateSource;
  /** The data, or its JSON text (a job's document: parsed on the thread). */
  data: object | Uint8Array;
  profile: PrinterProfile;
  format: PreviewFormat;
  claim?: boolean;
}

interface Waiting {
  request: RenderRequest;
  resolve(rendering: Rendering): void;
  reject(error: unknown): void;
}

type Pool = import('piscina').Piscina<RenderTask, RenderOutcome>;

const threadFile = new URL('./render-thread.ts', import.meta.url).href;

export class RenderPool implements DocumentRenderer {
  readonly limits: RenderLimits;
  readonly #queue: FairQueue<Waiting>;
  #pool: Promise<Pool> | undefined;
  #running = 0;
  #threadsStarted = 0;
  #closed = false;

  constructor(limits: Partial<RenderLimits> = {}) {
    this.limits = { ...defaultRenderLimits, ...limits };
    this.#queue = new FairQueue(this.limits.queuedPerCompany);
  }

  /** Renders running on a thread now. */
  get running(): number {
    return this.#running;
  }

  /** Whether the threads were started (by a first render). */
  get started(): boolean {
    return this.#pool !== undefined;
  }

  /** Threads started so far: `threads`, and one more for each thread ended by a limit. */
  get threadsStarted(): number {
    return this.#threadsStarted;
  }

  render(request: RenderRequest): Promise<Rendering> {
    if (this.#closed) return Promise.reject(new Error('The render pool is closed.'));
    return new Promise<Rendering>((resolve, reject) => {
      const waiting: Waiting = { request, resolve, reject };
      if (!this.#queue.push(request.companyId, waiting, request.claim === true)) {
        reject(
          new Busy(
            `The company has ${this.limits.queuedPerCompany} renders waiting already; try again shortly.`,
            busyRetrySeconds,
          ),
        );
        return;
      }
      this.#next();
    });
  }

  /** Starts the next waiting render while a thread is free. */
  #next(): void {
    while (this.#running < this.limits.threads && this.#queue.size > 0) {
      const { owner, item: waiting } = this.#queue.shift()!;
      this.#running += 1;
      this.#run(waiting.request)
        .then(waiting.resolve, waiting.reject)
        .finally(() => {
          this.#running -= 1;
          this.#queue.done(owner);
          this.#next();
        });
    }
  }

  async #run(request: RenderRequest): Promise<Rendering> {
    const pool = await this.#start();
    const started = new SharedArrayBuffer(8);
    const stop = new AbortController();
    const { budgetMs } = this.limits;
    // The budget runs from the moment the thread starts the render (it writes the time in
    // `started`), not while a fresh thread loads its modules: a timer that finds the render
    // started later, or not yet, waits for the rest.
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const since = new Float64Array(started)[0]!;
      const left =
        since === 0 ? budgetMs : since + budgetMs - (performance.timeOrigin + performance.now());
      if (left <= 0) stop.abort();
      else timer = setTimeout(check, left);
    };
    timer = setTimeout(check, budgetMs);
    const task: RenderTask = {
      template: request.template,
      data: request.data,
      profile: request.profile,
      format: request.format,
      started,
    };
    try {
      const outcome = await pool.run(task, { signal: stop.signal });
      if (outcome.ok) {
        // A view of what came from the thread, not another copy.
        const { buffer, byteOffset, byteLength } = outcome.bytes;
        return {
          contentType: outcome.contentType,
          bytes: Buffer.from(buffer, byteOffset, byteLength),
        };
      }
      throw outcome.errors
        ? new InvalidFields(outcome.errors)
        : invalidField('data', outcome.message);
    } catch (error) {
      throw this.#refusal(error, stop.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A thread's end, as the render's refusal; anything else as it was. */
  #refusal(error: unknown, outOfTime: boolean): unknown {
    const said = 'The template could not be rendered with this data';
    if (outOfTime) {
      return invalidField(
        'data',
        `${said}: it took longer than its budget of ${this.limits.budgetMs / 1000} s.`,
      );
    }
    if ((error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return invalidField(
        'data',
        `${said}: it needed more than its memory limit of ${this.limits.memoryMb} MB.`,
      );
    }
    return error;
  }

  /** The threads, started by the first render. */
  #start(): Promise<Pool> {
    this.#pool ??= import('piscina').then(({ Piscina }) => {
      const pool = new Piscina<RenderTask, RenderOutcome>({
        filename: threadFile,
        minThreads: this.limits.threads,
        maxThreads: this.limits.threads,
        // One render a thread at a time: the pool in front of it queues, fairly.
        concurrentTasksPerWorker: 1,
        idleTimeout: Number.POSITIVE_INFINITY,
        niceIncrement: this.limits.niceness,
        resourceLimits: {
          maxOldGenerationSizeMb: this.limits.memoryMb,
          // 16, not 32: receipts with lines drawn in scripts (script-lines.ts) made V8 grow a
          // thread's young generation to 32 MiB, and the garbage buffers it held until
          // collected stayed in the thread's allocator: 240 such receipts a thread took the
          // process +146 MiB at 32, +79 at 16 (a scratch script, 2026-11-28). Other receipts
          // never grew it past 16.
          maxYoungGenerationSizeMb: 16,
        },
      });
      pool.on('workerCreate', () => {
        this.#threadsStarted += 1;
      });
      return pool;
    });
    return this.#pool;
  }

  /**
   * Refuses what waits and ends the threads (the server closes it once its requests are
   * answered, so nothing runs then).
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#queue.drain()) {
      waiting.reject(new Error('The render pool is closed.'));
    }
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool) await (await pool).close({ force: true });
  }
}
