import { hostname as osHostname } from 'node:os';
import { agentVersion } from '../version.ts';
import { refreshPrinters } from './printer-watch.ts';
import { type RuntimeContext, requireClient } from './runtime-context.ts';

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
  if (context.routes.length > 0) context.routes = await client.putRoutes(context.routes, signal);
  const config = await client.getConfig(signal);
  if (context.routes.length === 0) context.routes = config.routes;
  context.intervals = config.intervals;
  status.noteConnected();
  status.log(
    'info',
    `connected; routes: ${context.routes.map((route) => `${route.name}=${route.printer}${route.enabled ? '' : ' (disabled)'}`).join(', ') || '(none)'}`,
  );
}
