import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, link, mkdir, open, readFile, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One agent per state directory (docs/agent.md, "One agent per state directory"): two agents
 * on one directory would share one agent id, overwrite each other's routes and print from one
 * journal. `<state>/agent.lock` names its holder: pid, host, and the process's start time
 * where the OS tells it (Linux), so that a pid reused after a crash is not taken for the
 * agent that died.
 *
 * Not proper-lockfile: it names no holder (the message must give the pid), and takes a lock
 * over only once its mtime is older than a timeout that it refreshes by writing every few
 * seconds; here a lock left by `kill -9` is taken over at the next start, at once.
 */

export class StateDirectoryInUse extends Error {
  readonly holder: LockHolder;
  readonly stateDir: string;

  constructor(stateDir: string, holder: LockHolder) {
    const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
    super(
      `another agent (pid ${holder.pid}${where}, since ${holder.started_at}) is running on the state directory ${stateDir}; stop it first, or give this one its own --state-dir`,
    );
    this.holder = holder;
    this.stateDir = stateDir;
  }
}

export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
  /** Linux: the process's start time in clock ticks since boot (/proc/PID/stat field 22). */
  process_start?: string;
}

/** Linux: when the process of this pid started; undefined elsewhere or when it is gone. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true; // another computer's: it cannot be asked
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: a process of another user holds that pid, which is alive.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.pid === process.pid) return false; // our own pid, from an earlier life (a container)
  if (holder.process_start === undefined) return true;
  const now = processStart(holder.pid);
  return now === undefined || now === holder.process_start;
}

async function readHolder(file: string): Promise<LockHolder | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' ? parsed : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // Unreadable or torn (it is written whole, then linked into place): nobody's lock.
    return { pid: -1, host: hostname(), started_at: 'unknown' };
  }
}

/**
 * Makes the state directory private to the agent's user (0700 where the OS has modes): it
 * holds the credential and the documents in flight, receipts with customers' names among
 * them. A directory made wider by hand is narrowed, and said so once.
 */
export async function privateStateDir(dir: string): Promise<string | null> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return null;
  const info = await stat(dir);
  if ((info.mode & 0o077) === 0) return null;
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    return `the state directory ${dir} can be read by other users (mode ${(info.mode & 0o777).toString(8)}) and is not ours to change: make it private (chmod 700)`;
  }
  await chmod(dir, 0o700);
  return `made the state directory ${dir} private to this user (mode ${(info.mode & 0o777).toString(8)} → 700)`;
}

/**
 * Takes the directory's lock, or throws StateDirectoryInUse naming the holder. The lock is
 * written whole into a temp file and linked into place (link fails if the name exists), so
 * a reader never sees half a lock. Taking over a dead holder's lock happens under a second,
 * short-lived lock (`agent.lock.takeover`, a directory): two agents that find the same dead
 * lock at once cannot both take it, since the second one reads the lock again and finds the
 * first.
 */
export async function acquireStateLock(stateDir: string): Promise<() => Promise<void>> {
  const file = join(stateDir, 'agent.lock');
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    ...(processStart(process.pid) !== undefined && { process_start: processStart(process.pid) }),
  };
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await linkLock(file, text)) return () => releaseStateLock(file, text);
    const holder = await readHolder(file);
    if (holder === null) continue; // released meanwhile: try again
    if (alive(holder)) throw new StateDirectoryInUse(stateDir, holder);
    await takeOver(file, holder);
  }
  throw new Error(`could not take the lock ${file}: it keeps changing hands`);
}

async function linkLock(file: string, text: string): Promise<boolean> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/** Removes a dead holder's lock, if it is still that holder's, under the takeover lock. */
async function takeOver(file: string, dead: LockHolder): Promise<void> {
  const guard = `${file}.takeover`;
  try {
    await mkdir(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another agent is taking over now; a guard left by one killed mid-way goes after 10 s.
    const age = Date.now() - (await stat(guard).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > 10_000) await rmdir(guard).catch(() => {});
    await new Promise((wait) => setTimeout(wait, 50));
    return;
  }
  try {
    const now = await readHolder(file);
    if (now && JSON.stringify(now) === JSON.stringify(dead)) await unlink(file).catch(() => {});
  } finally {
    await rmdir(guard).catch(() => {});
  }
}

async function releaseStateLock(file: string, text: string): Promise<void> {
  // Only our own: a lock taken over by another agent (ours judged dead) is theirs now.
  const now = await readFile(file, 'utf8').catch(() => null);
  if (now === text) await unlink(file).catch(() => {});
}
