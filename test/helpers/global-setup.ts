import { holdTestCups } from './cups.ts';

/**
 * Vitest's global set-up, run once in the main process around the whole run: the run holds
 * the shared CUPS scheduler (test/helpers/cups.ts) while it lasts, so that a cupsd one test
 * file starts serves the next ones too, and is stopped when the last run using it ends.
 */
let releaseCups: (() => Promise<void>) | undefined;

export async function setup(): Promise<void> {
  releaseCups = await holdTestCups();
}

export async function teardown(): Promise<void> {
  await releaseCups?.();
}
