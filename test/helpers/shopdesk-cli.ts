import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect } from 'vitest';
import { runShopdesk } from '../../cli/main.ts';

/**
 * The `shopdesk` operator command line, for its tests. `shopdesk(...args)` runs a command in
 * the test's own process, through the same `runShopdesk` that `bin/shopdesk.js` calls, with
 * its output and exit code captured: a command costs milliseconds instead of the ~0.5 s of
 * CPU a new Node process spends loading the sources. `shopdeskProcess` runs it as operators
 * do, a child process, for what only a process shows: another folder, another environment,
 * another Node, the executable itself, and a write to a SQLite file that a server in this
 * process is busy on (an agent process calling it): in one thread, the command's wait for the
 * write lock holds up the server's commit that would free it, until the 5 s busy timeout
 * ends it with 'database is locked' (seen once in a full run).
 */

export const bin = resolve(import.meta.dirname, '../../bin/shopdesk.js');

/** A directory for this file's databases, removed after its tests. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Settings a developer's shell may hold that would point the CLI at another database. */
const pointers = ['DATABASE_URL', 'SHOPDESK_DB', 'SHOPDESK_PORT'];

/** The environment without anything that would point the CLI at another database. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SHOPDESK_LOG_LEVEL: 'warn' };
  for (const name of pointers) delete env[name];
  return env;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let previous: Promise<unknown> = Promise.resolve();

/**
 * `shopdesk ARGS` in this process. Runs one at a time (each has the process's stdout, stderr
 * and environment to itself while it runs), in the order they were asked for.
 */
export function shopdesk(...args: string[]): Promise<Run> {
  return shopdeskWith({}, ...args);
}

/**
 * `shopdesk ARGS` in this process with these environment variables set while it runs (then
 * put back as they were): for a setting read from the environment, not for the process.
 */
export function shopdeskWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const run = previous.then(() => runInProcess(args, env));
  previous = run.catch(() => {});
  return run;
}

async function runInProcess(args: string[], env: Record<string, string>): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const { write: writeOut } = process.stdout;
  const { write: writeErr } = process.stderr;
  const names = [...new Set([...pointers, 'SHOPDESK_LOG_LEVEL', ...Object.keys(env)])];
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  }) as typeof process.stderr.write;
  for (const name of pointers) delete process.env[name];
  process.env.SHOPDESK_LOG_LEVEL = 'warn';
  Object.assign(process.env, env);
  try {
    const code = await runShopdesk(['node', bin, ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** `shopdesk ARGS` as a child process: another folder, more environment, another Node or its flags. */
export function shopdeskProcess(
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

/**
 * `shopdesk token create` for `company` with `permissions`, then `more` (its other options and
 * the database's), checked to have succeeded: the token it printed.
 */
export async function tokenByCli(
  company: string,
  permissions: string,
  ...more: string[]
): Promise<string> {
  return (
    await ok('token', 'create', '--company', company, '--permissions', permissions, ...more)
  ).trim();
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
