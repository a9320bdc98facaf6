import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * A CUPS scheduler for the tests: the running one if there is one, otherwise `cupsd -f`
 * started here (as root, with the system configuration) and stopped by its pid afterwards.
 *
 * Several test files use CUPS and vitest runs files in parallel processes, so the start and
 * the stop are shared: a lock directory serialises them, each user leaves a file named after
 * its pid, and the cupsd a test started is stopped (by the pid it recorded) only when the
 * last user is done. A scheduler that ran before any test is never stopped.
 */
export interface TestCups {
  /** True when this call started cupsd. */
  started: boolean;
  stop(): Promise<void>;
}

const shared = join(tmpdir(), 'shopdesk-test-cups');
const lockDir = join(shared, 'lock');
const usersDir = join(shared, 'users');
const pidFile = join(shared, 'cupsd.pid');

async function schedulerRunning(): Promise<boolean> {
  try {
    const { stdout } = await execFileAsync('lpstat', ['-r']);
    return stdout.includes('scheduler is running');
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function withLock<T>(work: () => Promise<T>): Promise<T> {
  await mkdir(shared, { recursive: true });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      // The last user removed the shared folder just now (see stop): make it again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        await mkdir(shared, { recursive: true });
        continue;
      }
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A holder killed mid-way leaves the lock: older than the deadline, it is taken over.
      const age = Date.now() - (await stat(lockDir).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > 30_000 || Date.now() > deadline)
        await rm(lockDir, { recursive: true, force: true });
      await sleep(50);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/** Users whose process is still alive (a crashed test process leaves its file behind). */
async function liveUsers(): Promise<string[]> {
  const names = await readdir(usersDir).catch(() => [] as string[]);
  return names.filter((name) => alive(Number(name.split('-')[0])));
}

export async function startTestCups(): Promise<TestCups> {
  const me = `${process.pid}-${randomBytes(4).toString('hex')}`;
  let child: ChildProcess | null = null;
  let exited = false;
  const started = await withLock(async () => {
    await mkdir(usersDir, { recursive: true });
    await writeFile(join(usersDir, me), '');
    if (await schedulerRunning()) return false;
    child = spawn('cupsd', ['-f'], { stdio: 'ignore' });
    child.on('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + 15_000;
    while (!(await schedulerRunning())) {
      if (exited) {
        await rm(join(usersDir, me), { force: true });
        throw new Error('cupsd exited at start; is cups installed and are we root?');
      }
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        await rm(join(usersDir, me), { force: true });
        throw new Error('cupsd did not answer within 15 s');
      }
      await sleep(100);
    }
    await writeFile(pidFile, String(child.pid));
    return true;
  });

  async function stopOurs(): Promise<void> {
    // Our child: stopped and reaped here, so that no zombie is left behind.
    const ours = child as ChildProcess | null;
    if (ours === null || exited) return;
    const gone = new Promise((resolve) => ours.once('exit', resolve));
    ours.kill('SIGTERM');
    await gone;
  }

  return {
    started,
    async stop() {
      await withLock(() => rm(join(usersDir, me), { force: true }));
      if (started) {
        // The starter waits (bounded) for the other users, then stops its own child.
        const deadline = Date.now() + 45_000;
        while ((await liveUsers()).length > 0 && Date.now() < deadline) await sleep(200);
      }
      await withLock(async () => {
        if ((await liveUsers()).length > 0) return; // the last user stops it, by the pid file
        await stopRecorded();
        // Nothing of the tests' is left in the temporary folder (files of crashed users too).
        await rm(usersDir, { recursive: true, force: true });
      });
      // Only if empty: another test process may be taking the lock again already.
      await rmdir(shared).catch(() => {});
    },
  };

  /** Stops the scheduler that the pid file names, if a test started one. */
  async function stopRecorded(): Promise<void> {
    const recorded = Number(await readFile(pidFile, 'utf8').catch(() => ''));
    if (!recorded) return;
    await rm(pidFile, { force: true });
    const ours = child as ChildProcess | null;
    if (ours !== null && ours.pid === recorded) return stopOurs();
    // A scheduler another test process started and left to us: stopped by its pid.
    if (!alive(recorded)) return;
    process.kill(recorded, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while ((await schedulerRunning()) && Date.now() < deadline) await sleep(100);
  }
}

export async function lpadmin(args: string[]): Promise<void> {
  await execFileAsync('lpadmin', args);
}

export async function deleteQueue(name: string): Promise<void> {
  await execFileAsync('lpadmin', ['-x', name]).catch(() => {});
}

/** A small valid one-page PDF carrying `text`, with a correct xref so no filter complains. */
export function minimalPdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 20 100 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
