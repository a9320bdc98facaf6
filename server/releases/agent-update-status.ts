import type { AgentListing } from '../../shared/printing.ts';
import {
  type AgentListingWithUpdate,
  compareVersions,
  type ReleaseChannel,
  releasePlatformOf,
} from '../../shared/releases.ts';
import type { Db } from '../storage/db.ts';
import { completeReleases, offeredRelease } from './releases.ts';

/**
 * Each agent with where it stands on updates: the newest build offered to it (its platform,
 * the channel it last read, the rollout counted) and whether it runs an older version. Two
 * reads for the page, whatever its size: the builds and the agents' last checks.
 */
export async function withUpdateStatus(
  db: Db,
  companyId: number,
  agents: AgentListing[],
): Promise<AgentListingWithUpdate[]> {
  if (agents.length === 0) return [];
  const releases = await completeReleases(db);
  const checks = await db
    .selectFrom('agent_update_checks')
    .select(['agent_uuid', 'channel', 'checked_at'])
    .where('company_id', '=', companyId)
    .where(
      'agent_uuid',
      'in',
      agents.map((agent) => agent.id),
    )
    .execute();
  const checkOf = new Map(checks.map((check) => [check.agent_uuid, check]));
  return agents.map((agent) => {
    const check = checkOf.get(agent.id);
    const channel = (check?.channel ?? 'stable') as ReleaseChannel;
    const platform = releasePlatformOf(agent.platform);
    const offered = platform ? offeredRelease(releases, platform, channel, agent.id) : null;
    return {
      ...agent,
      update: {
        channel,
        latest_version: offered?.version ?? null,
        behind: offered !== null && compareVersions(offered.version, agent.version) > 0,
        last_checked_at: check?.checked_at ?? null,
      },
    };
  });
}
