import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` so that a crash leaves either the old file or the new one, never a
 * torn one: write a temp file beside it, fsync it, rename it over, then fsync the directory
 * so the rename itself survives a power cut.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const dir = dirname(path);
  // The leading dot and `.tmp` suffix keep half-written files out of directory listings.
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/** Removes a file and makes the removal durable; a file already gone is fine. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
}

async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory for fsync; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Reads every `*.json` record of a directory (a journal or an outbox), skipping temp files
 * and records that do not parse, which are reported to `onBadRecord`. It only reads: a temp
 * file may belong to a write in progress.
 */
export async function readJsonRecords<T>(
  dir: string,
  parse: (value: unknown) => T,
  onBadRecord: (file: string, error: unknown) => void,
): Promise<T[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const records: T[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue;
    try {
      records.push(parse(JSON.parse(await readFile(join(dir, name), 'utf8'))));
    } catch (error) {
      onBadRecord(name, error);
    }
  }
  return records;
}

/**
 * Deletes the temp files a crash left half written. Only for the directory's owner at
 * start-up, before it writes: at any other time a temp file may be a write in progress.
 */
export async function removeCrashLeftovers(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const name of await readdir(dir)) {
    if (name.startsWith('.') && name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
  }
}
