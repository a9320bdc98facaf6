import type { PrintRoute } from '../../../shared/printing.ts';
import { routePrinterNames } from '../../../shared/wait-reasons.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';
import { checkServerRoutes } from './server-routes.ts';

const describeRoute = (route: PrintRoute) =>
  `${route.name}=${routePrinterNames(route).join(',')}${route.enabled ? '' : ' (disabled)'}`;

/**
 * Whether the server's routes version (from a heartbeat's answer) says the routes changed
 * there since this agent last saved or read them: someone edited them in the console.
 */
export function routesChangedOnServer(context: RuntimeContext, version: number | undefined) {
  return (
    version !== undefined && context.routesVersion !== null && version !== context.routesVersion
  );
}

/**
 * Reads the agent's routes from the server again (`GET /printing/config`) and serves them:
 * a system printer as given (with its profile); a printer that is not the system's only
 * when this PC's own configuration maps exactly that route to it (server-routes.ts). One
 * line says what changed; the route listeners (the tray's settings) are told.
 */
export async function adoptServerRoutes(
  context: RuntimeContext,
  signal: AbortSignal,
): Promise<void> {
  const { status } = context;
  const config = await requireClient(context).getConfig(signal);
  const checked = checkServerRoutes(config.routes, context.ownRoutes);
  const before = JSON.stringify(context.routes);
  context.routes = checked.routes;
  context.refusedRoutes = checked.refused;
  context.routesVersion = config.routes_version ?? context.routesVersion;
  if (JSON.stringify(checked.routes) === before && checked.refused.size === 0) return;
  status.log(
    'info',
    `routes changed on the server: ${checked.routes.map(describeRoute).join(', ') || '(none)'}`,
  );
  for (const message of checked.refused.values()) status.log('error', `refused: ${message}`);
  for (const listener of context.routeListeners) {
    try {
      listener(structuredClone(checked.routes));
    } catch (error) {
      status.log('warn', `could not keep the routes from the server: ${(error as Error).message}`);
    }
  }
}
