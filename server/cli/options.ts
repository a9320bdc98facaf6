import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { UsageError } from '../../shared/usage-error.ts';
import {
  type DatabaseTarget,
  databaseTarget,
  durationSeconds,
  readEnvironment,
} from '../config.ts';
import type { Storage } from '../storage/database.ts';

export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) {
      throw new InvalidArgumentError(`${name} must be a whole number of at least 1.`);
    }
    return Number(value);
  };
}

export function nonNegativeInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number.`);
    return Number(value);
  };
}

/** Seconds, or a number of minutes, hours or days: `90`, `15m`, `24h`, `7d`. */
export function duration(name: string) {
  return (value: string): number => {
    const seconds = durationSeconds(value);
    if (seconds === undefined) {
      throw new InvalidArgumentError(
        `${name} must be a whole number of seconds, or of minutes, hours or days with m, h or d (24h).`,
      );
    }
    return seconds;
  };
}

export function text(name: string, max: number) {
  return (value: string): string => {
    const trimmed = value.trim();
    if (!trimmed) throw new InvalidArgumentError(`${name} must not be empty.`);
    if (trimmed.length > max)
      throw new InvalidArgumentError(`${name} must be at most ${max} characters.`);
    return trimmed;
  };
}

/** `--db FILE | --database-url URL`, on every command that touches data. */
export function withDatabaseOptions(command: Command): Command {
  return command
    .option('--db <file>', 'SQLite database file (env SHOPDESK_DB; default ./data/shopdesk.sqlite)')
    .option('--database-url <url>', 'PostgreSQL connection URL (env DATABASE_URL)');
}

export interface DatabaseOptions {
  db?: string;
  databaseUrl?: string;
}

export function targetOf(options: DatabaseOptions): DatabaseTarget {
  if (options.db && options.databaseUrl) {
    throw new UsageError('give either --db or --database-url, not both');
  }
  if (options.databaseUrl && !/^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    throw new UsageError('--database-url must be a postgres:// URL');
  }
  return databaseTarget(options, readEnvironment());
}

/**
 * Opens and migrates the database, runs the work, and always closes it. Commands that act on
 * existing records (`existing: true`) refuse a SQLite file that is not there rather than
 * create one: a mistyped --db must not leave a new, empty database behind.
 */
export async function withStorage<T>(
  options: DatabaseOptions,
  work: (storage: Storage) => Promise<T>,
  { existing = false }: { existing?: boolean } = {},
): Promise<T> {
  const target = targetOf(options);
  if (existing && target.kind === 'sqlite' && !existsSync(target.file)) {
    throw new UsageError(`no database at ${target.file}; create a company there first`);
  }
  // Loaded here, not above: --help and usage errors answer without loading Kysely.
  const { openStorage } = await import('../storage/database.ts');
  const { migrateToLatest } = await import('../storage/migrate.ts');
  const storage = openStorage(target);
  try {
    await migrateToLatest(storage);
    return await work(storage);
  } finally {
    await storage.close();
  }
}

export function print(line: string): void {
  process.stdout.write(`${line}\n`);
}
