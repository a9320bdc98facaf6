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

/** A route's profile its printer cannot print (profile-fit's "misconfigured: …"). */
const isProfileMisfit = (reason: WaitReason) =>
  reason.code === 'printer_misconfigured' && reason.message.startsWith('misconfigured:');

/** What was last said per route about its profile, so that a misfit is logged once. */
const misfitsSaid = new WeakMap<RuntimeContext, Map<string, string>>();

/**
 * Logs each route whose profile its printer cannot print ("route receipts is misconfigured:
 * PDF_Office takes PDF, the profile says ESC/POS"), once until it changes, and when it is
 * fixed: the agent does not claim on it, and its jobs wait on the server with that reason.
 */
export function logMisconfiguredRoutes(
  context: RuntimeContext,
  waiting: ReadonlyMap<string, WaitReason>,
): void {
  const said = misfitsSaid.get(context) ?? new Map<string, string>();
  misfitsSaid.set(context, said);
  for (const [route, reason] of waiting) {
    // A printer missing from this computer has its own line already (printer-watch: "not
    // ready: not found on this computer"); here, a profile its printer cannot print.
    if (!isProfileMisfit(reason) || said.get(route) === reason.message) continue;
    said.set(route, reason.message);
    context.status.log('warn', `route ${route} is ${reason.message}; its jobs wait on the server`);
  }
  for (const route of said.keys()) {
    const reason = waiting.get(route);
    if (reason !== undefined && isProfileMisfit(reason)) continue;
    said.delete(route);
    context.status.log('info', `route ${route} fits its printer again`);
  }
}
