import type { PrintRoute } from '../../../shared/printing.ts';
import { routeWaitReason, type WaitReason } from '../../../shared/wait-reasons.ts';
import type { RuntimeContext } from './runtime-context.ts';

/**
 * Which enabled routes can print now, by their printers' last reading (`routeWaitReason`: a
 * route can print when any of its printers can). `claimOn` is what the long-poll names:
 * `undefined` when every enabled route can print (the request as before), else the ones
 * that can, possibly none (then the agent does not ask). `waiting` says why the others wait.
 */
export function printableRoutes(context: RuntimeContext): {
  claimOn: string[] | undefined;
  waiting: Map<string, WaitReason>;
} {
  const enabled = context.routes.filter((route) => route.enabled);
  const waiting = new Map<string, WaitReason>();
  for (const route of enabled) {
    const reason = routeWaitReason(route, context.status.state.printers);
    if (reason !== null) waiting.set(route.name, reason);
  }
  if (waiting.size === 0) return { claimOn: undefined, waiting };
  return {
    claimOn: enabled.filter((route) => !waiting.has(route.name)).map((route) => route.name),
    waiting,
  };
}

/** Why a route cannot print now, or null when it can (or is not known not to). */
export function routeWaits(context: RuntimeContext, route: PrintRoute): WaitReason | null {
  return routeWaitReason(route, context.status.state.printers);
}
