import { hostname as osHostname } from 'node:os';
import { routePrinterNames } from '../../../shared/wait-reasons.ts';
import { agentVersion } from '../version.ts';
import { refreshPrinters } from './printer-watch.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';
import { checkServerRoutes } from './server-routes.ts';

/**
 * Registers the agent with its printers, saves its routes on the server (or takes the server's
 * when it was given none) and reads the intervals the loops run at.
 */
export async function connect(context: RuntimeContext, signal: AbortSignal): Promise<void> {
  const { options, status } = context;
  const client = requireClient(context);
  try {
    // Before the server is asked anything: a missing printer or a stopped CUPS is said at
    // start, even while the server is away.
    await refreshPrinters(context);
  } catch (error) {
    // Registered without printers; the printer watch tries again within seconds.
    status.log('warn', `could not list printers: ${(error as Error).message}`);
  }
  const printers = status.state.printers;
  const hostname = (options.hostname ?? osHostname()).slice(0, 255) || 'unknown';
  await client.register(
    {
      uuid: context.identity!.uuid,
      name: (options.agentName ?? hostname).slice(0, 255),
      hostname,
      platform: process.platform,
      version: agentVersion,
      printers,
    },
    signal,
  );
  // What the agent was configured with on this PC; the server's copy is checked against it.
  // With routes of its own the agent saves them (they win over an edit in the console made
  // while it was away); without, it takes the server's (docs/agent.md, "Who wins").
  const own = context.ownRoutes;
  const saved = own.length > 0 ? await client.putRoutes(own, signal) : null;
  const config = await client.getConfig(signal);
  const fromServer = saved?.routes ?? config.routes;
  context.routesVersion = saved?.routes_version ?? config.routes_version ?? null;
  const checked = checkServerRoutes(fromServer, own);
  context.routes = checked.routes;
  context.refusedRoutes = checked.refused;
  for (const message of checked.refused.values()) status.log('error', `refused: ${message}`);
  context.intervals = config.intervals;
  status.noteConnected();
  status.log(
    'info',
    `connected; routes: ${context.routes.map((route) => `${route.name}=${routePrinterNames(route).join(',')}${route.enabled ? '' : ' (disabled)'}`).join(', ') || '(none)'}`,
  );
}
