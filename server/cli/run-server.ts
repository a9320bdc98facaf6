import { agentPermissions, permissions } from '../../shared/permissions.ts';
import { startApp } from '../app.ts';
import { countCompanies, createCompany } from '../companies/companies.ts';
import { defaultServerConfig, readEnvironment, webhookPolicyOf } from '../config.ts';
import { openStorage, type Storage } from '../storage/database.ts';
import { issueToken } from '../tokens/tokens.ts';
import { type DatabaseOptions, print, targetOf } from './options.ts';

export interface ServeOptions extends DatabaseOptions {
  host?: string;
  port?: number;
  rateLimit?: number;
  demo?: boolean;
  webhooksAllowHttp?: boolean;
  webhooksAllowPrivate?: boolean;
}

/** `shopdesk serve`: migrates, then serves until SIGINT/SIGTERM (graceful). */
export async function runServer(options: ServeOptions): Promise<void> {
  const env = readEnvironment();
  const database = targetOf(options);
  const storage = openStorage(database);
  const app = await startApp(
    {
      ...defaultServerConfig,
      database,
      host: options.host ?? env.SHOPDESK_HOST ?? defaultServerConfig.host,
      port: options.port ?? env.SHOPDESK_PORT ?? defaultServerConfig.port,
      rateLimitPerMinute:
        options.rateLimit ?? env.SHOPDESK_RATE_LIMIT ?? defaultServerConfig.rateLimitPerMinute,
      logLevel: env.SHOPDESK_LOG_LEVEL ?? defaultServerConfig.logLevel,
      webhooks: webhookPolicyOf(options, env),
      secretKey: env.SHOPDESK_SECRET_KEY,
    },
    { storage },
  );
  print(`ShopDesk API listening on ${app.url}/api/v1`);
  if (options.demo) await seedDemo(storage, app.url);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    app.services.log.info('shutting down: finishing in-flight requests');
    void app.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** A fresh database gets a demo company and two tokens, printed this once. */
async function seedDemo(storage: Storage, url: string): Promise<void> {
  if ((await countCompanies(storage)) > 0) return;
  const companyId = await createCompany(storage, 'Demo Shop');
  const admin = await issueToken(storage, {
    companyId,
    permissions: [...permissions],
    name: 'demo: all permissions',
  });
  const agent = await issueToken(storage, {
    companyId,
    permissions: agentPermissions,
    name: 'demo: print agent',
  });
  print('');
  print(`Fresh database: created company ${companyId} "Demo Shop". Tokens, shown this once:`);
  print(`  all permissions: ${admin.secret}`);
  print(`  print agent:     ${agent.secret}`);
  print(`Try: curl -H "Authorization: Bearer ${admin.secret}" ${url}/api/v1/me`);
}
