import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect } from 'vitest';

/** Runs the `shopdesk` operator command line as operators run it: a child process. */

export const bin = resolve(import.meta.dirname, '../../bin/shopdesk.js');

/** A directory for this file's databases, removed after its tests. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The environment without anything that would point the CLI at another database. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SHOPDESK_LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.SHOPDESK_DB;
  delete env.SHOPDESK_PORT;
  return env;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function shopdesk(...args: string[]): Promise<Run> {
  return shopdeskWith({}, ...args);
}

/** `shopdesk` run another way: another folder, more environment, another Node or its flags. */
export function shopdeskWith(
  how: { cwd?: string; env?: NodeJS.ProcessEnv; node?: string; nodeArgs?: string[] },
  ...args: string[]
): Promise<Run> {
  return new Promise((done) => {
    execFile(
      how.node ?? process.execPath,
      [...(how.nodeArgs ?? []), bin, ...args],
      { env: { ...cleanEnv(), ...how.env }, cwd: how.cwd, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** A usage error as the CLI promises it: exit code 2, one line on stderr, nothing on stdout. */
export function expectUsageError(run: Run, message: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^error: [^\n]+\n$/);
  expect(run.stderr).toMatch(message);
}

export async function ok(...args: string[]): Promise<string> {
  const run = await shopdesk(...args);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

export function countRows(file: string): Record<string, number> {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const counts: Record<string, number> = {};
    for (const table of ['companies', 'tokens', 'warehouses', 'categories', 'customers']) {
      counts[table] = (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    }
    return counts;
  } finally {
    db.close();
  }
}

export function revokedAt(file: string, id: number): string | null {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (
      db.prepare('select revoked_at from tokens where id = ?').get(id) as {
        revoked_at: string | null;
      }
    ).revoked_at;
  } finally {
    db.close();
  }
}

/** Starts `shopdesk serve` and waits for its one line; returns the line and the process. */
export async function startServe(args: string[]): Promise<{
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exited: Promise<number | null>;
}> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: cleanEnv(),
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^ShopDesk API listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/.exec(out);
      if (line) {
        clearTimeout(timer);
        done(line[1]!);
      }
    });
    child.once('exit', () => fail(new Error(`serve exited: ${err}`)));
  });
  return { child, url, stdout: () => out, exited };
}
