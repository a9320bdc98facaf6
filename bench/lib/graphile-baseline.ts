/**
 * The baseline of the multi-instance print-queue bench: graphile-worker, a PostgreSQL job
 * queue for Node.js that does no HTTP, on the same PostgreSQL server and database (its own
 * schema, `graphile_worker`). N jobs are added in one `addJobs` call (not timed), then a
 * runner with a no-op task runs them; jobs/s is N over the time from the runner's start to
 * the N-th job done. Its worker runs in this process, beside nothing else.
 */
import { cpuSecondsOf } from './spawn.ts';

export interface BaselineResult {
  name: string;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  /** CPU seconds of this process (the worker) during the run. */
  workerCpu: number;
}

export interface BaselineSettings {
  name: string;
  concurrency: number;
  maxPoolSize: number;
  /** graphile-worker's batching (a local queue of this size, completions batched): its published set-up. */
  batched: boolean;
}

export async function runGraphileWorker(
  connectionString: string,
  jobs: number,
  settings: BaselineSettings,
): Promise<BaselineResult> {
  const { Logger, makeWorkerUtils, run } = await import('graphile-worker');
  const logger = new Logger(() => () => {});
  const utils = await makeWorkerUtils({ connectionString, logger });
  try {
    await utils.migrate();
    // In chunks: one statement per chunk, parameters of a reasonable size.
    for (let added = 0; added < jobs; added += 1000) {
      const count = Math.min(1000, jobs - added);
      await utils.addJobs(
        Array.from({ length: count }, (_, i) => ({
          identifier: 'noop',
          payload: { n: added + i },
        })),
      );
    }
  } finally {
    await utils.release();
  }
  let done = 0;
  let finished: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const cpuBefore = cpuSecondsOf(process.pid) ?? 0;
  const started = performance.now();
  const runner = await run({
    connectionString,
    logger,
    concurrency: settings.concurrency,
    maxPoolSize: settings.maxPoolSize,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: {
      noop: async () => {
        done += 1;
        if (done === jobs) finished();
      },
    },
    ...(settings.batched
      ? {
          preset: {
            worker: {
              localQueue: { size: 500 },
              completeJobBatchDelay: 0,
              failJobBatchDelay: 0,
            },
          },
        }
      : {}),
  });
  await allDone;
  const seconds = (performance.now() - started) / 1000;
  const workerCpu = (cpuSecondsOf(process.pid) ?? 0) - cpuBefore;
  await runner.stop();
  return {
    name: settings.name,
    jobs,
    seconds,
    jobsPerSecond: jobs / seconds,
    workerCpu,
  };
}
