import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
  name: 'systemd-analyze' | 'curl' | 'pdftotext',
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

/** `systemd-analyze verify ARGS… FILE`: what it printed (nothing, for a good unit). */
export async function systemdAnalyzeVerify(
  file: string,
  args: string[] = [],
): Promise<{ stdout: string; stderr: string }> {
  await requireProgram('systemd-analyze');
  return execFileAsync('systemd-analyze', ['verify', ...args, file]);
}
