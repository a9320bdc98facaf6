import { createHash } from 'node:crypto';
import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The spooler back-ends hand a document to `lp`, SumatraPDF or PowerShell as a file: a
 * private folder in the system's temporary folder, removed once the spooler has it. A
 * crash leaves it behind (a 10 MiB label stays 10 MiB), so each agent names its folders
 * after itself and clears its own at start. Only its own: the tray app and a headless agent
 * may run on one PC, and one must not delete the document the other is printing.
 */
export const tempCopyPrefix = 'shopdesk-print-';

/** `shopdesk-print-<8 hex of the state folder>-`: one agent, one state folder (docs/agent.md). */
export function tempCopyPrefixFor(stateDir: string): string {
  const tag = createHash('sha256').update(resolve(stateDir)).digest('hex').slice(0, 8);
  return `${tempCopyPrefix}${tag}-`;
}

/** A new private folder (mode 0700) for one document. */
export function makeTempCopyDir(prefix: string = tempCopyPrefix): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/**
 * Writes `document` as `name` in the folder `dir` (from makeTempCopyDir), readable by the
 * agent's user only, and never over a file already there; resolves with its path.
 */
export async function writeTempCopy(
  dir: string,
  name: string,
  document: Uint8Array,
): Promise<string> {
  const file = join(dir, name);
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(document);
  } finally {
    await handle.close();
  }
  return file;
}

/**
 * Removes the folders named with `prefix` in the temporary folder; resolves with how many
 * went. One that cannot be removed (Windows: a SumatraPDF that outlived its agent still has
 * it open) is left for the next start.
 */
export async function removeTempCopies(prefix: string): Promise<number> {
  const dir = tmpdir();
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    try {
      await rm(join(dir, name), { recursive: true, force: true });
      removed++;
    } catch {
      // Left for the next start.
    }
  }
  return removed;
}
