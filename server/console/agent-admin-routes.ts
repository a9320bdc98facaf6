import { removedAgentRecord, renameAgentBody } from '../../shared/console.ts';
import { dataOf } from '../../shared/http.ts';
import { agentParams } from '../../shared/printing.ts';
import { HttpError } from '../http/errors.ts';
import { type AnyRoute, defineRoute, noContent, ok } from '../http/route.ts';
import { removeAgent, renameAgent } from '../printing/index.ts';
import type { Caller } from '../tokens/index.ts';
import { personOf, tag } from './person-routes.ts';

/** Owners and managers (`printing.agents.write`) name and remove agents. */
function agentWriter(caller: Caller, what: string): void {
  const person = personOf(caller);
  if (!caller.permissions.has('printing.agents.write')) {
    throw new HttpError('forbidden', `The role ${person.role} may not ${what}.`);
  }
}

/**
 * A person renames an agent (the name stays when it registers again) or removes one that is
 * offline, its tokens revoked (docs/console.md, "Agents").
 */
export const agentAdminRoutes: AnyRoute[] = [
  defineRoute({
    method: 'PATCH',
    path: '/console/agents/{uuid}',
    access: 'session',
    hidden: true,
    operationId: 'consoleRenameAgent',
    summary: 'Rename an agent',
    tag,
    params: agentParams,
    body: renameAgentBody,
    responses: { 204: { description: 'Renamed.' } },
    async handler({ params, body, caller, services, db }) {
      agentWriter(caller, 'rename agents');
      await renameAgent(
        db,
        caller.companyId,
        params.uuid.toLowerCase(),
        body.name,
        services.clock.now(),
      );
      return noContent();
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/console/agents/{uuid}',
    access: 'session',
    hidden: true,
    operationId: 'consoleRemoveAgent',
    summary: 'Remove an offline agent and revoke its tokens',
    tag,
    params: agentParams,
    responses: {
      200: { description: 'Removed; its tokens revoked.', schema: dataOf(removedAgentRecord) },
    },
    async handler({ params, caller, services, db }) {
      agentWriter(caller, 'remove agents');
      const removed = await removeAgent(
        services.storage,
        db,
        caller.companyId,
        params.uuid.toLowerCase(),
        services.printing.presence(),
        services.clock.now(),
      );
      // Its tokens stop here, on this instance too (the cache hears of it).
      services.tokenCache?.changed();
      return ok({ tokens_revoked: removed.tokensRevoked });
    },
  }),
];
