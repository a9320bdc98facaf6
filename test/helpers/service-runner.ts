import type { RunnerTask, RunnerTestCase, RunnerTestSuite } from 'vitest';
import { TestRunner } from 'vitest';
import { servicesRequired } from './services.ts';

/**
 * Vitest's own runner, plus one rule: a test or a `describe` that failed because a service
 * it needs is missing (a helper threw `ServiceMissing`, test/helpers/services.ts) is
 * reported as skipped, with the helper's one line as the reason, unless the run requires
 * its services (`CI=true` or `SHOPDESK_REQUIRE_SERVICES=1`): then it stays a failure with
 * that line. Whatever else failed in it (an `afterAll` closing a server that never started)
 * followed from the missing service and is dropped with it.
 */
export default class ServiceRunner extends TestRunner {
  override onAfterRunTask(test: RunnerTestCase): void {
    skipIfServiceMissing(test);
    super.onAfterRunTask(test);
  }

  override async onAfterRunSuite(suite: RunnerTestSuite): Promise<void> {
    skipIfServiceMissing(suite);
    await super.onAfterRunSuite(suite);
  }
}

/** Vitest keeps a skip's reason in `note` (what `ctx.skip(note)` gives), untyped here. */
type Result = NonNullable<RunnerTask['result']> & { note?: string };

function skipIfServiceMissing(task: RunnerTask): void {
  const result = task.result as Result | undefined;
  if (result?.state !== 'fail' || servicesRequired()) return;
  const missing = result.errors?.find((error) => error.name === 'ServiceMissing');
  if (missing === undefined) return;
  result.state = 'skip';
  result.note = missing.message;
  result.errors = undefined;
  if (task.type === 'suite') for (const child of task.tasks) markSkipped(child, missing.message);
}

/** The tests under a skipped `describe`: skipped for the same reason, which they carry. */
function markSkipped(task: RunnerTask, note: string): void {
  task.result ??= { state: 'skip' };
  const result = task.result as Result;
  if (result.state === 'fail' || result.state === 'skip') {
    result.state = 'skip';
    result.note ??= note;
    result.errors = undefined;
  }
  if (task.type === 'suite') for (const child of task.tasks) markSkipped(child, note);
}
