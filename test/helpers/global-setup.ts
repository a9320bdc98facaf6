import { stopTestCups } from './cups.ts';

/**
 * Vitest's global set-up, run once in the main process around the whole run: what the test
 * processes started and left for each other (the shared cupsd, test/helpers/cups.ts) is
 * stopped at the end.
 */
export async function teardown(): Promise<void> {
  await stopTestCups();
}
