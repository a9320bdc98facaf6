import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import {
  type DatabaseTarget,
  databaseTarget,
  durationSeconds,
  type Environment,
  readEnvironment,
} from '../server/config.ts';
import type { Storage } from '../server/storage/database.ts';
import { maxId } from '../shared/http.ts';
import { routeNameSchema } from '../shared/printing.ts';
import { UsageError } from '../shared/usage-error.ts';

/** A whole number from 1 to the largest id both databases hold (ids, counts, days). */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > maxId) {
      throw new InvalidArgumentError(`${name} must be a whole number from 1 to ${maxId}.`);
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

/** A TCP port: 0 (any free one) to 65535. */
export function portNumber(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) > 65535) {
      throw new InvalidArgumentError(`${name} must be a whole number from 0 to 65535.`);
    }
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

/** `receipts,labels`: route names, each checked, duplicates dropped. */
export function routeList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!routeNameSchema.safeParse(name).success) {
      throw new InvalidArgumentError(
        `route "${name}" must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".`,
      );
    }
  }
  return [...new Set(names)];
}

/** `--agent UUID`: the uuid a print agent registers with, lower case. */
export function agentUuid(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new InvalidArgumentError('--agent must be the UUID the agent registers with.');
  }
  return value.toLowerCase();
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

/**
 * `--db FILE | --database-url URL`, on every command that touches data; `--create` on the
 * commands that may make a new database (serve, company create).
 */
export function withDatabaseOptions(command: Command, { creates = false } = {}): Command {
  command
    .option('--db <file>', 'SQLite database file (env SHOPDESK_DB; default ./data/shopdesk.sqlite)')
    .option('--database-url <url>', 'PostgreSQL connection URL (env DATABASE_URL)');
  if (creates) {
    command.option('--create', "create the SQLite file's folder if it is missing");
  }
  return command;
}

export interface DatabaseOptions {
  db?: string;
  databaseUrl?: string;
  create?: boolean;
}

/** The environment, with a bad value as a usage error (one line, exit code 2). */
export function environment(): Environment {
  try {
    return readEnvironment();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Where the command's data lives. A command that may make a new database (`mayCreate`)
 * refuses a SQLite file whose folder is missing, unless it is the default path or --create
 * says so: a typo in --db must not start an empty shop somewhere new. (Storage makes the
 * folder when it opens the file.)
 */
export function targetOf(
  options: DatabaseOptions,
  { mayCreate = false }: { mayCreate?: boolean } = {},
): DatabaseTarget {
  if (options.db && options.databaseUrl) {
    throw new UsageError('give either --db or --database-url, not both');
  }
  if (options.databaseUrl && !/^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    throw new UsageError('--database-url must be a postgres:// URL');
  }
  const env = environment();
  const target = databaseTarget(options, env);
  if (mayCreate && target.kind === 'sqlite' && target.file !== ':memory:' && !options.create) {
    const folder = dirname(resolve(target.file));
    const isDefault = !options.db && !env.SHOPDESK_DB;
    if (!isDefault && !existsSync(folder)) {
      const from = options.db ? '--db' : 'SHOPDESK_DB';
      throw new UsageError(
        `no folder ${folder} for the database; check ${from}, or add --create to make it`,
      );
    }
  }
  return target;
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
  const target = targetOf(options, { mayCreate: !existing });
  if (existing && target.kind === 'sqlite' && !existsSync(target.file)) {
    throw new UsageError(`no database at ${target.file}; create a company there first`, {
      pointsToHelp: false,
    });
  }
  // Loaded here, not above: --help and usage errors answer without loading Kysely.
  const { openStorage } = await import('../server/storage/database.ts');
  const { migrateToLatest } = await import('../server/storage/migrate.ts');
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
