import type { AnyRoute } from '../http/route.ts';
import { agentAdminRoutes } from './agent-admin-routes.ts';
import { agentRouteRoutes } from './agent-route-routes.ts';
import { jobRoutes } from './job-routes.ts';
import { documentRoute, overviewRoute, streamRoute } from './page-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { tokenRoutes, userAdminRoutes, userRoutes } from './team-routes.ts';

export { signInTriesPerAddress, signInTriesPerMinute } from './person-routes.ts';

/**
 * The console's routes: its own (hidden from the API document: they serve its pages and
 * take only a signed-in person), and the live stream (documented: tokens may use it too).
 */
export const consoleRoutes: AnyRoute[] = [
  ...sessionRoutes,
  ...userRoutes,
  ...userAdminRoutes,
  ...tokenRoutes,
  ...agentRouteRoutes,
  ...agentAdminRoutes,
  ...jobRoutes,
  overviewRoute,
  documentRoute,
  streamRoute,
];
