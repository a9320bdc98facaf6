import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { ReleaseChannel, ReleasePlatform } from '../../shared/releases.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { FleetTables } from '../storage/tables/fleet.ts';
import { isoNow } from '../time.ts';

export type ReleaseRow = Selectable<FleetTables['agent_releases']>;

/**
 * A build is kept as rows of this many bytes: written one at a time as the file is read, and
 * read one at a time as it is served, so neither side ever holds the whole build (an Electron
 * installer is ~100 MB). 1 MiB: a row PostgreSQL stores out of line (TOAST) without fuss,
 * and few enough rows (~100 a build) that a range request finds its first one by key.
 */
export const releaseChunkBytes = 1024 * 1024;

export interface NewRelease {
  version: string;
  platform: ReleasePlatform;
  channel: ReleaseChannel;
  /** The installer's name as served (`ShopDesk-Print-Agent-Setup-1.2.0.exe`). */
  fileName: string;
  rollout: number;
  content: AsyncIterable<Uint8Array>;
}

/**
 * Publishes a build: its bytes in chunks, its SHA-512 (base64, as latest.yml carries it)
 * computed while they pass. The row is written first, incomplete, and marked complete last:
 * the feed offers only complete builds, so an upload cut off half-way is never served (and
 * the next `release add` of that version replaces it). Not one transaction: a write lock held
 * for the seconds a large file takes would stall every other writer of an SQLite file.
 */
export async function addRelease(
  storage: Storage,
  input: NewRelease,
  now: Date,
): Promise<ReleaseRow> {
  const db = storage.db;
  const existing = await db
    .selectFrom('agent_releases')
    .selectAll()
    .where('platform', '=', input.platform)
    .where('channel', '=', input.channel)
    .where('version', '=', input.version)
    .executeTakeFirst();
  if (existing?.complete === 1) {
    throw new Conflict(
      `Version ${input.version} for ${input.platform} is published on ${input.channel} already (release ${existing.id}); publish a new version instead.`,
    );
  }
  if (existing) await removeRelease(storage, existing.id);
  const clash = await db
    .selectFrom('agent_releases')
    .select('id')
    .where('channel', '=', input.channel)
    .where('file_name', '=', input.fileName)
    .executeTakeFirst();
  if (clash) {
    throw new Conflict(
      `A build named ${input.fileName} is published on ${input.channel} already (release ${clash.id}); installers carry their version in their name.`,
    );
  }
  const row = await db
    .insertInto('agent_releases')
    .values({
      version: input.version,
      platform: input.platform,
      channel: input.channel,
      file_name: input.fileName,
      size: 0,
      sha512: '',
      rollout: input.rollout,
      complete: 0,
      created_at: isoNow(now),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  try {
    const hash = createHash('sha512');
    let size = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (bytes: Buffer) => {
      await db
        .insertInto('agent_release_chunks')
        .values({ release_id: row.id, seq, data: bytes })
        .execute();
      seq += 1;
    };
    for await (const piece of input.content) {
      const buffer = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      hash.update(buffer);
      size += buffer.length;
      pending.push(buffer);
      pendingBytes += buffer.length;
      while (pendingBytes >= releaseChunkBytes) {
        const joined = Buffer.concat(pending);
        await flush(joined.subarray(0, releaseChunkBytes));
        const rest = joined.subarray(releaseChunkBytes);
        pending = rest.length > 0 ? [Buffer.from(rest)] : [];
        pendingBytes = rest.length;
      }
    }
    if (pendingBytes > 0) await flush(Buffer.concat(pending));
    if (size === 0) throw new Conflict('The file is empty: give the installer the build made.');
    return await db
      .updateTable('agent_releases')
      .set({ size, sha512: hash.digest('base64'), complete: 1 })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    await removeRelease(storage, row.id).catch(() => {});
    throw error;
  }
}

/** Removes a build and its bytes. */
export async function removeRelease(storage: Storage, id: number): Promise<boolean> {
  return storage.transaction(storage.db, async (trx) => {
    await trx.deleteFrom('agent_release_chunks').where('release_id', '=', id).execute();
    const result = await trx.deleteFrom('agent_releases').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}
