import type { IncomingMessage } from 'node:http';
import { agentIdHeader } from '../../shared/printing.ts';
import { type ReleasePlatform, updateFileParams, updateFileQuery } from '../../shared/releases.ts';
import { NotFound } from '../domain-errors.ts';
import { HttpError } from '../http/errors.ts';
import { type AnyRoute, defineRoute, type Reply } from '../http/route.ts';
import type { Caller } from '../tokens/index.ts';
import {
  completeReleases,
  latestYml,
  offeredRelease,
  recordUpdateCheck,
  releaseByFile,
  releaseBytes,
} from './releases.ts';

const tag = 'Print agents: updates';

/** The files electron-updater's generic provider asks for first, by platform. */
const feedFiles: Record<string, ReleasePlatform> = {
  'latest.yml': 'win',
  'latest-mac.yml': 'mac',
  'latest-linux.yml': 'linux',
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which agent asks: a bound token's own (it may name no other), else `X-Agent-Id` when it is
 * a uuid; null when neither says (such a caller is offered only builds at 100 %).
 */
function askingAgent(request: IncomingMessage, caller: Caller): string | null {
  const header = request.headers[agentIdHeader];
  const named =
    typeof header === 'string' && uuidPattern.test(header) ? header.toLowerCase() : null;
  if (caller.agentUuid !== null) {
    if (named !== null && named !== caller.agentUuid) {
      throw new HttpError(
        'forbidden',
        `This token is bound to the print agent ${caller.agentUuid} and cannot act as agent ${named}.`,
      );
    }
    return caller.agentUuid;
  }
  return named;
}

/**
 * One range of RFC 9110 §14.1.2 (`bytes=0-1023`, `bytes=1024-`, `bytes=-500`) within `size`,
 * or null: no Range, several ranges, or one that cannot be met. A null is answered with the
 * whole file (200), which §14.2 allows a server to do with any Range it does not serve.
 */
export function byteRange(header: string | undefined, size: number): [number, number] | null {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '') || size === 0) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start <= end && start < size ? [start, end] : null;
}

export const releaseRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/printing/updates/{channel}/{file}',
    access: { permission: 'printing.agent' },
    operationId: 'getAgentUpdateFile',
    agentHeader: 'hint',
    summary: 'The update feed of the print agent',
    description:
      "Extension: what electron-updater's generic provider reads, with the feed URL `/api/v1/printing/updates/{channel}/`. `latest.yml` (Windows), `latest-mac.yml` and `latest-linux.yml` name the newest build of the channel offered to the calling agent (its bound token's, or `X-Agent-Id`; a build at a rollout under 100 % is offered to that share of agents), with its size and `sha512`; any other name is a build itself, served with single byte ranges (206). No build offered → 404.",
    tag,
    params: updateFileParams,
    query: updateFileQuery,
    responses: {
      200: {
        description: 'The feed file (text/yaml), or the whole build (application/octet-stream).',
      },
      206: { description: 'The byte range asked for (Content-Range).' },
    },
    async handler({ params, caller, services, request }): Promise<Reply> {
      const db = services.storage.db;
      const platform = feedFiles[params.file];
      if (platform !== undefined) {
        const agent = askingAgent(request, caller);
        if (agent !== null) {
          await recordUpdateCheck(
            services.storage,
            caller.companyId,
            agent,
            params.channel,
            services.clock.now(),
          );
        }
        const release = offeredRelease(await completeReleases(db), platform, params.channel, agent);
        if (!release) {
          throw new NotFound(`Agent build for ${platform} on the ${params.channel} channel`);
        }
        return {
          status: 200,
          body: latestYml(release),
          headers: { 'content-type': 'text/yaml; charset=utf-8', 'cache-control': 'no-store' },
        };
      }
      const release = await releaseByFile(db, params.channel, params.file);
      const size = Number(release.size);
      const range = byteRange(request.headers.range, size);
      const [start, end] = range ?? [0, size - 1];
      const headers: Record<string, string> = {
        'content-type': 'application/octet-stream',
        'content-length': String(end - start + 1),
        'accept-ranges': 'bytes',
      };
      if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
      return {
        status: range ? 206 : 200,
        body: releaseBytes(db, release, start, end),
        headers,
      };
    },
  }),
];
