import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  compareVersions,
  type ReleaseChannel,
  type ReleasePlatform,
} from '../../shared/releases.ts';
import { NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { type ReleaseRow, releaseChunkBytes } from './add-release.ts';

/**
 * Which agents a build at `rollout` percent is offered to: those whose uuid falls in the
 * first `rollout` of 100 buckets. The bucket is the agent's own (a hash of its uuid), not
 * the build's, so raising a rollout from 10 to 50 keeps the first tenth in, and the next
 * build at 10 % goes to the same agents first: a ring of early adopters. An agent that does
 * not say who it is is offered only builds at 100 %.
 */
export function rolloutBucket(agentUuid: string): number {
  return Number.parseInt(hash('sha256', agentUuid.toLowerCase(), 'hex').slice(0, 8), 16) % 100;
}

export const offeredTo = (release: Pick<ReleaseRow, 'rollout'>, agentUuid: string | null) =>
  release.rollout >= 100 || (agentUuid !== null && rolloutBucket(agentUuid) < release.rollout);

/** Every complete build, newest version first (a small table: a few builds a month). */
export async function completeReleases(db: Db): Promise<ReleaseRow[]> {
  const rows = await db
    .selectFrom('agent_releases')
    .selectAll()
    .where('complete', '=', 1)
    .execute();
  return rows.sort((a, b) => compareVersions(b.version, a.version));
}

/** The newest build of this platform and channel offered to this agent, if any. */
export function offeredRelease(
  releases: ReleaseRow[],
  platform: ReleasePlatform,
  channel: ReleaseChannel,
  agentUuid: string | null,
): ReleaseRow | null {
  return (
    releases.find(
      (release) =>
        release.platform === platform &&
        release.channel === channel &&
        offeredTo(release, agentUuid),
    ) ?? null
  );
}

/** electron-builder's latest.yml for one build (what electron-updater's parser reads). */
export function latestYml(release: ReleaseRow): string {
  const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return [
    `version: ${release.version}`,
    'files:',
    `  - url: ${quoted(release.file_name)}`,
    `    sha512: ${release.sha512}`,
    `    size: ${Number(release.size)}`,
    `path: ${quoted(release.file_name)}`,
    `sha512: ${release.sha512}`,
    `releaseDate: ${quoted(release.created_at)}`,
    '',
  ].join('\n');
}

/** The complete build served under this name on this channel. */
export async function releaseByFile(
  db: Db,
  channel: ReleaseChannel,
  fileName: string,
): Promise<ReleaseRow> {
  const row = await db
    .selectFrom('agent_releases')
    .selectAll()
    .where('channel', '=', channel)
    .where('file_name', '=', fileName)
    .where('complete', '=', 1)
    .executeTakeFirst();
  if (!row) throw new NotFound('Agent build');
  return row;
}

/**
 * Bytes `start` to `end` (inclusive) of a build, read one chunk at a time as the reader asks
 * for more: a 100 MB download holds one chunk in memory, not the file.
 */
export function releaseBytes(db: Db, release: ReleaseRow, start: number, end: number): Readable {
  let seq = Math.floor(start / releaseChunkBytes);
  const last = Math.floor(end / releaseChunkBytes);
  return new Readable({
    async read() {
      try {
        if (seq > last) {
          this.push(null);
          return;
        }
        const row = await db
          .selectFrom('agent_release_chunks')
          .select('data')
          .where('release_id', '=', release.id)
          .where('seq', '=', seq)
          .executeTakeFirst();
        if (!row) throw new Error(`agent build ${release.id} lacks its chunk ${seq}`);
        const offset = seq * releaseChunkBytes;
        const from = Math.max(0, start - offset);
        const to = Math.min(row.data.length, end - offset + 1);
        seq += 1;
        this.push(Buffer.from(row.data).subarray(from, to));
      } catch (error) {
        this.destroy(error as Error);
      }
    },
  });
}

/** Remembers which channel an agent last read, for the agents listing (`update.channel`). */
export async function recordUpdateCheck(
  storage: Storage,
  companyId: number,
  agentUuid: string,
  channel: ReleaseChannel,
  now: Date,
): Promise<void> {
  await storage.db
    .insertInto('agent_update_checks')
    .values({ company_id: companyId, agent_uuid: agentUuid, channel, checked_at: isoNow(now) })
    .onConflict((oc) =>
      oc.columns(['company_id', 'agent_uuid']).doUpdateSet({ channel, checked_at: isoNow(now) }),
    )
    .execute();
}

/** Sets who is offered a build (`shopdesk release rollout`). */
export async function setRollout(storage: Storage, id: number, rollout: number): Promise<boolean> {
  const result = await storage.db
    .updateTable('agent_releases')
    .set({ rollout })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
