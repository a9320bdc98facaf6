import { z } from 'zod';
import { dataOf } from '../../shared/http.ts';
import {
  agentParams,
  isLocalOnlyPrinter,
  printRouteSchema,
  putRoutesBody,
} from '../../shared/printing.ts';
import { routePrinterNames } from '../../shared/wait-reasons.ts';
import { InvalidFields, NotFound } from '../domain-errors.ts';
import { HttpError } from '../http/errors.ts';
import { type AnyRoute, defineRoute, ok } from '../http/route.ts';
import { findAgentRow, readRouteList, updateRouteList } from '../printing/index.ts';
import { personOf, tag } from './person-routes.ts';

const savedRoutes = z.object({
  routes: z.array(printRouteSchema),
  /** The agent's count of route changes after this one: its next heartbeat reads it. */
  routes_version: z.number().int(),
});

/**
 * A person edits an agent's routes (`printing.agents.write`: owners and managers). Validated
 * as the agent's own `PUT /printing/routes`; the change moves the agent's routes version on,
 * and the running agent fetches its routes at its next heartbeat (docs/agent.md, "Routes
 * edited in the console"). A printer that is not one of the operating system's (`folder:`,
 * any `scheme:` or drive) is refused unless the agent already serves exactly that route on
 * it: such printers come from the agent's own configuration only (docs/security.md), and the
 * agent would refuse them anyway.
 */
export const agentRouteRoutes: AnyRoute[] = [
  defineRoute({
    method: 'PUT',
    path: '/console/agents/{uuid}/routes',
    access: 'session',
    hidden: true,
    operationId: 'consoleSetAgentRoutes',
    summary: "Replace an agent's routes (the agent adopts them at its next heartbeat)",
    tag,
    params: agentParams,
    body: putRoutesBody,
    responses: { 200: { description: 'The saved routes.', schema: dataOf(savedRoutes) } },
    async handler({ params, body, caller, services, db }) {
      const person = personOf(caller);
      if (!caller.permissions.has('printing.agents.write')) {
        throw new HttpError('forbidden', `The role ${person.role} may not change agents' routes.`);
      }
      const row = await findAgentRow(db, params.uuid.toLowerCase());
      if (!row || row.company_id !== caller.companyId) throw new NotFound('Print agent');
      const agent = { rowId: row.id, companyId: row.company_id, uuid: row.uuid };
      const current = await readRouteList(db, agent.rowId);
      const errors: Record<string, string[]> = {};
      body.routes.forEach((route, index) => {
        // Each of the route's printers, backups included: a local one only where it was.
        const had = current.find((c) => c.name === route.name);
        const fields: Array<[string, string]> = [
          [`routes.${index}.printer`, route.printer],
          ...(route.backup_printers ?? []).map((backup, at): [string, string] => [
            `routes.${index}.backup_printers.${at}`,
            backup,
          ]),
        ];
        for (const [field, printer] of fields) {
          if (!isLocalOnlyPrinter(printer)) continue;
          if (had !== undefined && routePrinterNames(had).includes(printer)) continue;
          errors[field] = [
            `The printer "${printer.slice(0, 255)}" is not a printer of the agent's computer: folder and other local printers are set in the agent's own configuration on that computer, never from the console.`,
          ];
        }
      });
      if (Object.keys(errors).length > 0) throw new InvalidFields(errors);
      const saved = await updateRouteList(services.storage, db, agent, body.routes);
      services.printing.routesChanged(agent);
      return ok(saved);
    },
  }),
];
