import {
  isLocalOnlyPrinter as namesLocalPlace,
  type PrintRoute,
} from '../../../shared/printing.ts';
import { type RoutePrinters, routePrinterNames } from '../../../shared/wait-reasons.ts';
import { isFolderPrinter } from '../printers/folder.ts';

/**
 * Which routes from the server the agent may print on. The server stores whatever printer
 * string a `printing.agent` token puts (`PUT /printing/routes`), so a route it hands out
 * could name `folder:/etc/cron.d` and have this PC write job contents there. A printer that
 * is not one of the operating system's (a `folder:` printer, or any other `scheme:` name a
 * back-end may read as a place rather than a printer) is taken only from the agent's own
 * configuration (`--route`, the configuration file, the tray's settings), never from the
 * server: a route from the server naming one is kept out of the routes served, and its jobs
 * fail with the reason (docs/agent.md, "Routes from the server").
 */

/**
 * Not a printer of the operating system: `folder:DIR`, and any name that starts like a URI
 * or a drive (`file:`, `socket://`, `C:`). CUPS names hold no `:`-prefixed scheme, and a
 * Windows printer's name (`\\server\share` included) does not start with one either.
 */
export function isLocalOnlyPrinter(printer: string): boolean {
  return isFolderPrinter(printer) || namesLocalPlace(printer);
}

export interface CheckedRoutes {
  /** The routes the agent serves. */
  routes: PrintRoute[];
  /** Route name → why it is not served: the message its jobs fail with. */
  refused: Map<string, string>;
}

/**
 * Splits routes read from the server: those on a system printer, or exactly as the agent's
 * own configuration (`own`) maps them, are served; the rest are refused with the reason.
 */
export function checkServerRoutes(
  fromServer: readonly PrintRoute[],
  own: ReadonlyArray<RoutePrinters & { name: string }>,
): CheckedRoutes {
  const routes: PrintRoute[] = [];
  const refused = new Map<string, string>();
  for (const route of fromServer) {
    // Each of its printers, backups included: a local one only as this route maps it here.
    const mine = own.find((candidate) => candidate.name === route.name);
    const configured = mine === undefined ? [] : routePrinterNames(mine);
    const foreign = routePrinterNames(route).find(
      (printer) => isLocalOnlyPrinter(printer) && !configured.includes(printer),
    );
    if (foreign === undefined) {
      routes.push(route);
      continue;
    }
    refused.set(
      route.name,
      `the server's route ${route.name} names the printer "${foreign.slice(0, 255)}", which is not a printer of this computer: folder printers come only from this agent's own configuration (--route or "routes" in its configuration file), never from the server; nothing was written`,
    );
  }
  return { routes, refused };
}
