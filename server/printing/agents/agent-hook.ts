import type { IncomingMessage } from 'node:http';
import { agentIdHeader } from '../../../shared/printing.ts';
import { HttpError } from '../../http/errors.ts';
import type { RouteHookSource } from '../../http/route.ts';
import type { Caller } from '../../tokens/index.ts';
import type { AgentRef } from './agent-identities.ts';

/**
 * The calling print agent, as a route's `agentHeader` declares it (`required` or `checked`;
 * a `hint` is the handler's to read): the same field writes the header into the OpenAPI
 * document. Checked just before the handler, once the query and the body have passed, with
 * the handler's `db` (the transaction of a keyed request): missing or not a uuid → 400,
 * another agent than a bound token's → 403, not registered by the company → 409.
 */

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where the hook leaves the agent in the context's `hooked`. */
const slot = 'agent';

/**
 * A token bound to one agent (`shopdesk token create --agent`) acts as that agent only:
 * naming another is refused (403), before anything is looked up (docs/security.md).
 */
export function refuseOtherAgent(caller: Caller, uuid: string): void {
  if (caller.agentUuid === null || caller.agentUuid === uuid.toLowerCase()) return;
  throw new HttpError(
    'forbidden',
    `This token is bound to the print agent ${caller.agentUuid} and cannot act as agent ${uuid.slice(0, 36)}.`,
  );
}

/**
 * The X-Agent-Id header: missing or not a UUID is the request's fault (400). A bound token
 * implies its agent when the header is left out.
 */
function agentIdOf(request: IncomingMessage, caller: Caller): string {
  const header = request.headers[agentIdHeader];
  const uuid = Array.isArray(header) ? header[0] : header;
  if (uuid === undefined && caller.agentUuid !== null) return caller.agentUuid;
  if (!uuid) {
    throw new HttpError(
      'bad_request',
      'The X-Agent-Id header is required: send the UUID the agent registered with POST /printing/register.',
    );
  }
  if (!uuidPattern.test(uuid)) {
    throw new HttpError('bad_request', 'The X-Agent-Id header must be a UUID.');
  }
  refuseOtherAgent(caller, uuid);
  return uuid;
}

/**
 * Whether the request names an agent: always on a `required` route; on a `checked` one when
 * it sends the header, or its token is bound to one agent (which acts as it, header or not).
 */
const namesAgent = (required: boolean, request: IncomingMessage, caller: Caller): boolean =>
  required || caller.agentUuid !== null || request.headers[agentIdHeader] !== undefined;

/** Installs the agent's checks on the routes whose `agentHeader` is `required` or `checked`. */
export const agentIdentityHook: RouteHookSource = (route) => {
  if (route.agentHeader !== 'required' && route.agentHeader !== 'checked') return undefined;
  const required = route.agentHeader === 'required';
  return {
    async preHandler(context, _sent, next) {
      const { request, caller, services, db } = context;
      if (namesAgent(required, request, caller)) {
        const uuid = agentIdOf(request, caller);
        context.hooked[slot] = await services.printing.requireAgent(db, uuid, caller.companyId);
      }
      return next();
    },
  };
};

/** The registered agent the request names, as its route's hook found it (`required`). */
export function callingAgent(hooked: Record<string, unknown>): AgentRef {
  const agent = hooked[slot] as AgentRef | undefined;
  if (!agent) throw new Error('The route reads the calling agent but declares no agentHeader.');
  return agent;
}

/** The agent the request names on a `checked` route, if it names one. */
export const optionalAgent = (hooked: Record<string, unknown>): AgentRef | undefined =>
  hooked[slot] as AgentRef | undefined;
