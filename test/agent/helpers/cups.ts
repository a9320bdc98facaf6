import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * A CUPS scheduler for the tests: the running one if there is one, otherwise `cupsd -f`
 * started here (as root, with the system configuration) and stopped by its pid afterwards.
 */
export interface TestCups {
  /** True when this helper started cupsd (and so stops it). */
  started: boolean;
  stop(): Promise<void>;
}

async function schedulerRunning(): Promise<boolean> {
  try {
    const { stdout } = await execFileAsync('lpstat', ['-r']);
    return stdout.includes('scheduler is running');
  } catch {
    return false;
  }
}

export async function startTestCups(): Promise<TestCups> {
  if (await schedulerRunning()) return { started: false, stop: async () => {} };
  const child: ChildProcess = spawn('cupsd', ['-f'], { stdio: 'ignore' });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + 15_000;
  while (!(await schedulerRunning())) {
    if (exited) throw new Error('cupsd exited at start; is cups installed and are we root?');
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error('cupsd did not answer within 15 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    started: true,
    stop: async () => {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
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
