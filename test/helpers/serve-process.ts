import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** `shopdesk serve` in a child process, as an operator runs it (docs/scale-out.md). */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** The origin it listens on, from its one stdout line. */
  url: string;
  /** What it wrote on stdout so far (its one line, more with `--demo`). */
  stdout(): string;
  /** What it wrote on stderr (its log) so far. */
  stderr(): string;
  /** Its exit code, or the signal that ended it. */
  exited: Promise<NodeJS.Signals | number | null>;
}

const bin = resolve(import.meta.dirname, '../../bin/shopdesk.js');

/** Starts `shopdesk serve --port 0 ARGS` and waits for the line that says it listens. */
export async function startServe(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ServeProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, SHOPDESK_LOG_LEVEL: 'warn', ...env };
  delete childEnv.DATABASE_URL;
  delete childEnv.SHOPDESK_DB;
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: childEnv,
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    child.once('exit', (code, signal) => done(signal ?? code)),
  );
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /ShopDesk API listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/.exec(out);
      if (line) {
        clearTimeout(timer);
        done(line[1]!);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      fail(new Error(`serve exited: ${err}`));
    });
  });
  return { child, url, stdout: () => out, stderr: () => err, exited };
}
