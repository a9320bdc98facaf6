import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh private state directory per test; `cleanup` removes it. */
export async function makeStateDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-agent-test-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
