import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Permission } from '../../shared/permissions.ts';
import { readCompanyName } from '../companies/index.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { ChangeWatch } from '../storage/change-watch.ts';
import type { Storage } from '../storage/database.ts';
import type { Clock } from '../time.ts';
import { hashToken } from './token-secrets.ts';

/** Who is calling: the token's company and what it may do. Never holds the secret. */
export interface Caller {
  tokenId: number;
  tokenName: string;
  companyId: number;
  companyName: string;
  permissions: ReadonlySet<Permission>;
  expiresAt: string | null;
  /** The one print agent (lower-case uuid) this token may act as; null: any of the company's. */
  agentUuid: string | null;
  /**
   * Set when a person signed in to the console calls, with the session's cookie instead of
   * a token (server/console/session-caller.ts); `tokenId` is then 0.
   */
  session?: ConsoleCaller;
}

/** The console user behind a session. */
export interface ConsoleCaller {
  sessionId: number;
  userId: number;
  email: string;
  role: 'owner' | 'manager' | 'staff';
}

/** The token a request sends (`Authorization: Bearer <token>`), if it sends one. */
export const bearerOf = (request: IncomingMessage): string | undefined =>
  request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];

/** Where a change of `tokens` or `companies` is announced, by the trigger of migration 014. */
export const tokensChannel = 'shopdesk_tokens';

interface CachedToken {
  caller: Caller | null;
  expiresAtMs: number | null;
}

/**
 * Looks bearer tokens up by hash. Answers are cached in memory, since tokens change rarely,
 * and dropped when one may have changed, so that a revocation takes effect at once
 * (`storage.watchChanges`, storage/change-watch.ts):
 * - SQLite: whenever another process (the CLI revoking a token) has committed a write
 *   (`PRAGMA data_version`), read once per turn of the event loop (the PRAGMA was ~2 % of
 *   the print queue's CPU; the requests read in one turn arrived together, and a
 *   revocation counts from the next turn, under a millisecond later);
 * - PostgreSQL: when a notice says tokens or companies changed (a trigger sends it with
 *   the commit, whoever wrote, on `tokensChannel`, and this instance's LISTEN session hears
 *   it), a few milliseconds after the commit on every instance. Without a LISTEN session
 *   (lost, or not started) nothing is cached: every request reads its token.
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, CachedToken>();
  private readonly storage: Storage;
  private readonly clock: Clock;
  /** When the cache may be used and when it must be dropped (`storage.watchChanges`). */
  readonly watch: ChangeWatch;
  /** Bumped whenever the cache is dropped: a read that began before is not kept. */
  private generation = 0;
  /**
   * The last secret each connection sent, and its hash: a keep-alive connection sends the
   * same token with every request, and hashing it was ~1.5 % of the print queue's CPU. Held
   * only while the connection lives (a WeakMap on its socket), never logged.
   */
  private readonly lastHashes = new WeakMap<object, { secret: string; hash: string }>();

  constructor(storage: Storage, clock: Clock) {
    this.storage = storage;
    this.clock = clock;
    this.watch = storage.watchChanges(this, { channel: tokensChannel, name: 'tokens' });
  }

  /** Starts hearing other processes' changes of tokens and companies (PostgreSQL: LISTEN). */
  start(log: Logger): Promise<void> {
    return this.watch.start(log);
  }

  close(): Promise<void> {
    return this.watch.close();
  }

  /** PostgreSQL: the LISTEN session is up (from now on notices arrive) or lost. */
  setListening(listening: boolean): void {
    this.watch.setListening(listening);
  }

  /** Tokens or companies changed (committed): read every token again. */
  changed(): void {
    this.generation += 1;
    this.cache.clear();
  }

  /**
   * The caller of this secret, or null when it is unknown, revoked or expired. `fresh` reads
   * the token from the database whatever the cache holds: a long-poll that waited checks
   * again so (revoked meanwhile by whatever process, it is refused). `connection`: the
   * socket the secret came on, whose last secret's hash is kept.
   */
  authenticate(
    secret: string,
    { fresh = false, connection }: { fresh?: boolean; connection?: object } = {},
  ): MaybePromise<Caller | null> {
    const cacheable = this.watch.trusted();
    const hash = connection ? this.hashOn(connection, secret) : hashToken(secret);
    if (fresh) this.cache.delete(hash);
    // Kept: answered at once, no promise (most requests: the read path stays synchronous).
    const kept = fresh || !cacheable ? undefined : this.cache.get(hash);
    if (kept) return this.callerOf(kept);
    const generation = this.generation;
    return this.load(hash).then((entry) => {
      // Unknown secrets are not cached: a flood of random tokens must not grow memory.
      if (entry.caller && cacheable && generation === this.generation) {
        if (this.cache.size >= 10_000) this.cache.clear();
        this.cache.set(hash, entry);
      }
      return this.callerOf(entry);
    });
  }

  /** The entry's caller, unless its token has expired meanwhile. */
  private callerOf(entry: CachedToken): Caller | null {
    if (!entry.caller) return null;
    if (entry.expiresAtMs !== null && this.clock.now().getTime() >= entry.expiresAtMs) return null;
    return entry.caller;
  }

  private hashOn(connection: object, secret: string): string {
    const last = this.lastHashes.get(connection);
    if (last?.secret === secret) return last.hash;
    const hash = hashToken(secret);
    this.lastHashes.set(connection, { secret, hash });
    return hash;
  }

  private async load(hash: string): Promise<CachedToken> {
    const db = this.storage.db;
    const row = await db
      .selectFrom('tokens')
      .select(['id', 'name', 'permissions', 'expires_at', 'revoked_at', 'agent_uuid', 'company_id'])
      .where('hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return { caller: null, expiresAtMs: null };
    // Read once a token, then kept with it: the companies are the companies folder's.
    const companyName = await readCompanyName(db, row.company_id);
    if (companyName === undefined) return { caller: null, expiresAtMs: null };
    return {
      caller: {
        tokenId: row.id,
        tokenName: row.name,
        companyId: row.company_id,
        companyName,
        permissions: new Set(JSON.parse(row.permissions) as Permission[]),
        expiresAt: row.expires_at,
        agentUuid: row.agent_uuid,
      },
      expiresAtMs: row.expires_at ? Date.parse(row.expires_at) : null,
    };
  }
}
