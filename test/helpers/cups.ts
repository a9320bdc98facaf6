import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireService } from './services.ts';
import { waitFor } from './wait.ts';

const execFileAsync = promisify(execFile);

/**
 * CUPS for the tests: the scheduler that runs already, or `cupsd -f` started by the first
 * test that needs it (detached, its pid recorded) and left running for every other one.
 *
 * Test files run in parallel processes, and other test runs (another checkout's) may use the
 * same scheduler at the same time, so the start and the stop are shared through a folder: a
 * lock directory serialises them, and each test run holds a file named after its main
 * process's pid for as long as it runs (`holdTestCups`, from test/helpers/global-setup.ts).
 * When the last run lets go, the cupsd a test started is stopped by its recorded pid. A
 * scheduler that ran before any test is never stopped. Without CUPS installed, the test is
 * skipped with a line saying so (or fails with it in CI: test/helpers/services.ts).
 */
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
      // The last user removed the shared folder just now: make it again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        await mkdir(shared, { recursive: true });
        continue;
      }
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A holder killed mid-way leaves the lock: past the deadline, it is taken over.
      if (Date.now() > deadline) await rm(lockDir, { recursive: true, force: true });
      await sleep(50);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

/** Users whose process is still alive (a crashed run leaves its file behind). */
async function liveUsers(): Promise<string[]> {
  const names = await readdir(usersDir).catch(() => [] as string[]);
  return names.filter((name) => alive(Number(name.split('-')[0])));
}

/** Makes sure the scheduler runs: the one there is, or a cupsd started here. */
export async function startTestCups(): Promise<void> {
  await requireService('cups');
  await withLock(async () => {
    if (await schedulerRunning()) return;
    const child = spawn('cupsd', ['-f'], { stdio: 'ignore', detached: true });
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    child.unref();
    await writeFile(pidFile, String(child.pid));
    const deadline = Date.now() + 15_000;
    while (!(await schedulerRunning())) {
      if (exited) throw new Error('cupsd exited at start; is cups installed and are we root?');
      if (Date.now() > deadline) throw new Error('cupsd did not answer within 15 s');
      await sleep(50);
    }
  });
}

/**
 * Holds the scheduler for one test run: a cupsd a test starts stays up until every run that
 * holds it has let go; the last one stops it by its recorded pid.
 */
export async function holdTestCups(): Promise<() => Promise<void>> {
  const me = `${process.pid}-${randomBytes(4).toString('hex')}`;
  await withLock(async () => {
    await mkdir(usersDir, { recursive: true });
    await writeFile(join(usersDir, me), '');
  });
  return () =>
    withLock(async () => {
      await rm(join(usersDir, me), { force: true });
      if ((await liveUsers()).length > 0) return;
      await stopRecorded();
      await rm(usersDir, { recursive: true, force: true });
    });
}

/** Stops the cupsd a test started, by its recorded pid, if it still runs. */
async function stopRecorded(): Promise<void> {
  const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
  await rm(pidFile, { force: true });
  if (!pid) return;
  // The pid is ours only while it is still a cupsd (a pid is reused once its process ends).
  const name = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
  if (name.trim() !== 'cupsd') return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (existsSync(`/proc/${pid}`) && Date.now() < deadline) await sleep(50);
}

/**
 * Where cups-pdf writes: the `Out` line of /etc/cups/cups-pdf.conf with `${HOME}` (and `~`)
 * as the submitting user's home; cups-pdf's own default, ~/PDF, when the file says nothing.
 */
export function cupsPdfOutDir(): string {
  let out = '~/PDF';
  for (const path of ['/etc/cups/cups-pdf.conf', '/usr/local/etc/cups/cups-pdf.conf']) {
    if (!existsSync(path)) continue;
    const line = readFileSync(path, 'utf8')
      .split('\n')
      .map((text) => text.trim())
      .find((text) => /^Out\s+/.test(text));
    if (line) out = line.replace(/^Out\s+/, '');
    break;
  }
  return out.replace(/\$\{HOME\}|^~/g, homedir()).replace(/\$\{USER\}/g, process.env.USER ?? '');
}

const namesIn = async (outDir: string) => (existsSync(outDir) ? await readdir(outDir) : []);

/** The files in cups-pdf's output folder now, to tell a job's new PDF from older ones. */
export async function pdfsIn(outDir: string): Promise<Set<string>> {
  return new Set(await namesIn(outDir));
}

/**
 * The names of the PDFs cups-pdf wrote for a job titled `title` since `before` (it names the
 * file after the title, and may finish writing a moment after CUPS calls the job completed).
 */
export async function newPdfs(outDir: string, before: Set<string>, title: string) {
  return waitFor(`a new PDF in ${outDir}`, async () => {
    const made = (await namesIn(outDir)).filter(
      (name) => !before.has(name) && name.includes(title) && name.endsWith('.pdf'),
    );
    return made.length > 0 ? made : null;
  });
}

export async function lpadmin(args: string[]): Promise<void> {
  await execFileAsync('lpadmin', args);
}

/** A queue on cups-pdf: what it prints comes out as a PDF file in the user's ~/PDF. */
export async function addPdfQueue(name: string): Promise<void> {
  await lpadmin(['-p', name, '-E', '-v', 'cups-pdf:/', '-m', 'lsb/usr/cups-pdf/CUPS-PDF_opt.ppd']);
}

/** A raw queue that sends its jobs, byte for byte, to a TCP port on this machine. */
export async function addRawQueue(name: string, port: number): Promise<void> {
  await lpadmin(['-p', name, '-E', '-v', `socket://127.0.0.1:${port}`]);
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
