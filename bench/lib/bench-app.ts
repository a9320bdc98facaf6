/**
 * The server the print-queue and webhook benches measure, in their child process: the real
 * app (startApp) on a temporary SQLite file, or on a fresh PostgreSQL database when
 * `BENCH_POSTGRES` names an admin URL; no rate limit, no log, webhooks to loopback allowed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { App } from '../../server/app.ts';
import { freshDatabase } from './pg-cluster.ts';

export interface BenchApp {
  app: App;
  /**
   * Another instance of the same database (PostgreSQL; on SQLite, which one process serves,
   * the same app): what a second server behind the load balancer would be.
   */
  secondInstance(): Promise<App>;
  /** Closes the app, then drops its database or removes its folder. */
  close(): Promise<void>;
}

export async function startBenchApp(): Promise<BenchApp> {
  const { startApp } = await import('../../server/app.ts');
  const { defaultServerConfig } = await import('../../server/config.ts');
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-'));
  const adminUrl = process.env.BENCH_POSTGRES;
  const postgres = adminUrl ? await freshDatabase(adminUrl) : undefined;
  const config = {
    ...defaultServerConfig,
    port: 0,
    database: postgres
      ? ({ kind: 'postgres', url: postgres.url } as const)
      : ({ kind: 'sqlite', file: join(dir, 'bench.sqlite') } as const),
    rateLimitPerMinute: 0,
    logLevel: 'silent' as const,
    webhooks: { allowHttp: true, allowPrivate: true },
    // Every instance shares the key (sessions, the live version's hash).
    secretKey: randomBytes(32).toString('base64'),
  };
  const log = pino({ level: 'silent' });
  const app = await startApp(config, { log });
  let second: App | undefined;
  return {
    app,
    async secondInstance() {
      if (!postgres) return app;
      second ??= await startApp(config, { log });
      return second;
    },
    async close() {
      await second?.close();
      await app.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
