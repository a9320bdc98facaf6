import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A fresh PostgreSQL database for one test file, on the server named by `SHOPDESK_TEST_PG`
 * (default: 127.0.0.1:5432, trust auth, user postgres). `drop()` removes it, connections and
 * all.
 */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

const adminUrl = process.env.SHOPDESK_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `shopdesk_t_${randomBytes(6).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}
