import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenApplicationName, openStorage, type Storage } from '../../server/storage/database.ts';
import type { ChannelListener, ListenConnection } from '../../server/storage/listen-connection.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The instance's one LISTEN connection (server/storage/listen-connection.ts): every part
 * subscribes its channel to it, each notice goes to the parts of its channel, and a lost
 * connection is opened again for all of them (docs/deploy.md, "1. PostgreSQL").
 */
let database: FreshDatabase;
let storage: Storage;
let listener: ListenConnection;
let admin: pg.Client;

beforeAll(async () => {
  database = await freshDatabase();
  storage = openStorage({ kind: 'postgres', url: database.url });
  listener = storage.listener!;
  admin = new pg.Client({ connectionString: database.url, application_name: 'test' });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await storage.close();
  await database.drop();
});

/** A part that records what it hears. */
function part(channel: string) {
  const heard: string[] = [];
  const events: string[] = [];
  const listening: ChannelListener = {
    channel,
    name: channel,
    log: pino({ level: 'silent' }),
    notice: (payload) => heard.push(payload),
    up: () => events.push('up'),
    down: () => events.push('down'),
  };
  return { listening, heard, events };
}

const listenConnections = async () =>
  (
    await admin.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
      [listenApplicationName],
    )
  ).rows.map((row) => row.pid);

describe('one LISTEN connection for every channel', () => {
  it('three parts on two channels share one connection; each notice reaches its channel only', async () => {
    const jobs = part('test_jobs');
    const tokens = part('test_tokens');
    const moreTokens = part('test_tokens');
    const subscriptions = [
      await listener.subscribe(jobs.listening),
      await listener.subscribe(tokens.listening),
      await listener.subscribe(moreTokens.listening),
    ];
    try {
      expect(subscriptions.every((subscription) => subscription.isListening)).toBe(true);
      expect(await listenConnections()).toEqual([listener.backendPid]);
      await admin.query(
        "select pg_notify('test_jobs', 'job 1'), pg_notify('test_tokens', 'token 2')",
      );
      await waitFor('the notices', () => jobs.heard.length && moreTokens.heard.length);
      expect(jobs.heard).toEqual(['job 1']);
      expect(tokens.heard).toEqual(['token 2']);
      expect(moreTokens.heard).toEqual(['token 2']);
    } finally {
      for (const subscription of subscriptions) await subscription.close();
    }
    await waitFor(
      'the connection ended with its last part',
      async () => (await listenConnections()).length === 0,
    );
  });

  it('a connection cut is opened again: every part hears down, then up, and notices again', async () => {
    const jobs = part('test_jobs');
    const tokens = part('test_tokens');
    const subscriptions = [
      await listener.subscribe(jobs.listening),
      await listener.subscribe(tokens.listening),
    ];
    try {
      const pid = listener.backendPid;
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await waitFor(
        'both parts listening again',
        () =>
          subscriptions.every((subscription) => subscription.isListening) &&
          listener.backendPid !== pid,
      );
      expect(jobs.events).toEqual(['up', 'down', 'up']);
      expect(tokens.events).toEqual(['up', 'down', 'up']);
      await admin.query("select pg_notify('test_tokens', 'after')");
      await waitFor('the notice after the cut', () => tokens.heard.length);
      expect(tokens.heard).toEqual(['after']);
    } finally {
      for (const subscription of subscriptions) await subscription.close();
    }
  });
});
