import { z } from 'zod';
import { timestamp } from './http.ts';
import { agentListing } from './printing.ts';

/** Agent builds IT publishes on the server, and the update feed (docs/it-guide.md). */

export const releasePlatforms = ['win', 'mac', 'linux'] as const;
export type ReleasePlatform = (typeof releasePlatforms)[number];
export const releaseChannels = ['stable', 'beta'] as const;
export type ReleaseChannel = (typeof releaseChannels)[number];

/** `1.2.3` or `1.2.3-beta.1`: what electron-builder and electron-updater compare. */
export const releaseVersionSchema = z
  .string()
  .regex(
    /^\d{1,9}\.\d{1,9}\.\d{1,9}(-[0-9A-Za-z.-]{1,40})?$/,
    'The :attribute field must be a version such as 1.2.3 or 1.3.0-beta.1.',
  );

/** The platform an agent reports (`process.platform`) as the builds name it. */
export function releasePlatformOf(platform: string): ReleasePlatform | null {
  if (platform === 'win32') return 'win';
  if (platform === 'darwin') return 'mac';
  if (platform === 'linux') return 'linux';
  return null;
}

export const updateParams = z.object({ channel: z.enum(releaseChannels) });
export const updateFileParams = updateParams.extend({
  file: z.string().min(1).max(255),
});
/**
 * What electron-updater's generic provider adds to every feed request (`?noCache=…`, a cache
 * buster): declared, since a route refuses query parameters it does not declare. Not read.
 */
export const updateFileQuery = z.object({ noCache: z.string().max(64).optional() });

/** How an agent stands against the builds published for it. */
export const agentUpdateStatus = z.object({
  /** The channel it last read the feed of; `stable` until it has. */
  channel: z.enum(releaseChannels),
  /** The newest build offered to this agent (rollout counted), or null when none is. */
  latest_version: z.string().nullable(),
  /** Whether that build is newer than the version the agent runs. */
  behind: z.boolean(),
  last_checked_at: timestamp.nullable(),
});
export type AgentUpdateStatus = z.infer<typeof agentUpdateStatus>;

/** `GET /printing/agents`: each agent as before, with where it stands on updates. */
export const agentListingWithUpdate = agentListing.extend({ update: agentUpdateStatus });
export type AgentListingWithUpdate = z.infer<typeof agentListingWithUpdate>;

/**
 * Orders two versions as semver does for these (`1.10.0` > `1.9.0`; a pre-release is older
 * than its release: `1.2.0-beta.1` < `1.2.0`; pre-releases compared as text).
 */
export function compareVersions(a: string, b: string): number {
  const split = (version: string) => {
    const [core = '', pre] = version.split(/-(.*)/s, 2);
    return { parts: core.split('.').map((part) => Number(part) || 0), pre: pre ?? null };
  };
  const left = split(a);
  const right = split(b);
  for (let i = 0; i < 3; i++) {
    const difference = (left.parts[i] ?? 0) - (right.parts[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === null) return 1;
  if (right.pre === null) return -1;
  return left.pre < right.pre ? -1 : 1;
}
