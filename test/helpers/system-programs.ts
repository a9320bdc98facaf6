import { execFile, spawn } from 'node:child_process';
import { lstat, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireService } from './services.ts';

const execFileAsync = promisify(execFile);

/**
 * Programs from Debian that a test runs and that are not services: systemd's
 * systemd-analyze (the agent's unit file is verified; systemd need not run), curl (the
 * README's walk) and poppler's pdftotext (the text of the PDFs templates render). Without one, the test is skipped with a line saying so (or fails with it
 * in CI: test/helpers/services.ts).
 */
export async function requireProgram(
  name: 'systemd-analyze' | 'curl' | 'pdftotext' | 'socat',
): Promise<void> {
  await requireService(name);
}

/** The text of a PDF as poppler's pdftotext reads it (the layout kept). */
export async function pdfText(pdf: Buffer): Promise<string> {
  await requireProgram('pdftotext');
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-pdf-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, pdf);
    const { stdout } = await execFileAsync('pdftotext', ['-layout', file, '-']);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The images a PDF draws, as poppler's pdfimages lists them, in the order of its pages. */
export async function pdfImages(pdf: Buffer): Promise<{ width: number; height: number }[]> {
  await requireProgram('pdftotext');
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-pdf-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, pdf);
    const { stdout } = await execFileAsync('pdfimages', ['-list', file]);
    // Two heading lines, then `page num type width height …` a row.
    return stdout
      .split('\n')
      .slice(2)
      .map((row) => row.trim().split(/\s+/))
      .filter((fields) => fields.length > 4 && fields[2] === 'image')
      .map((fields) => ({ width: Number(fields[3]), height: Number(fields[4]) }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A PDF's first page as a grey PNG at `dpi`, as poppler's pdftoppm draws it (from
 * poppler-utils, as pdftotext).
 */
export async function pdfFirstPage(pdf: Buffer, dpi: number): Promise<Buffer> {
  await requireProgram('pdftotext');
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-pdf-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, pdf);
    const { stdout } = await execFileAsync(
      'pdftoppm',
      ['-png', '-gray', '-r', String(dpi), '-f', '1', '-l', '1', file],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What poppler's pdfinfo says of a PDF (from poppler-utils, as pdftotext): its fields, and
 * what it wrote on stderr (syntax errors, a broken xref). It fails when pdfinfo exits non-zero.
 */
export async function pdfInfo(
  pdf: Buffer,
): Promise<{ fields: Map<string, string>; stderr: string }> {
  await requireProgram('pdftotext');
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-pdf-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, pdf);
    const { stdout, stderr } = await execFileAsync('pdfinfo', [file]);
    const fields = new Map<string, string>();
    for (const line of stdout.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    return { fields, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `systemd-analyze verify ARGS… FILE`: what it printed (nothing, for a good unit). */
export async function systemdAnalyzeVerify(
  file: string,
  args: string[] = [],
): Promise<{ stdout: string; stderr: string }> {
  await requireProgram('systemd-analyze');
  return execFileAsync('systemd-analyze', ['verify', ...args, file]);
}

/**
 * A fake USB printer device file: a pseudo-terminal (socat's PTY, raw, no echo) whose other
 * end is a TCP connection to `port`, a printer simulator's. No USB printer is attached here;
 * the agent opens `path` (a link to /dev/pts/N) and reads and writes it as it would
 * /dev/usb/lp0. `stop` ends socat by its pid.
 */
export async function fakeUsbDevice(
  port: number,
): Promise<{ path: string; stop: () => Promise<void> }> {
  await requireProgram('socat');
  const dir = await mkdtemp(join(tmpdir(), 'shopdesk-usb-'));
  const path = join(dir, 'lp0');
  const socat = spawn('socat', [`PTY,link=${path},raw,echo=0`, `TCP:127.0.0.1:${port}`], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => socat.once('exit', resolve));
  for (let tries = 0; ; tries++) {
    try {
      await lstat(path);
      break;
    } catch {
      if (tries > 100 || socat.exitCode !== null) throw new Error('socat made no pseudo-terminal');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return {
    path,
    stop: async () => {
      if (socat.exitCode === null && socat.pid !== undefined) process.kill(socat.pid, 'SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
