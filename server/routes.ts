import { cloudPrntRoutes } from './cloudprnt/routes.ts';
import { connectivityRoutes } from './connectivity/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { documentationRoutes } from './docs/routes.ts';
import { enrollmentRoutes } from './enrollments/routes.ts';
import type { AnyRoute } from './http/route.ts';
import { offerRoutes } from './offers/routes.ts';
import { printingRoutes } from './printing/routes.ts';
import { productRoutes } from './products/routes.ts';
import { releaseRoutes } from './releases/routes.ts';
import { stockRoutes } from './stock/routes.ts';
import { templateRoutes } from './templates/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';

/**
 * The route table: every operation of /api/v1, by domain. Dispatch and the OpenAPI
 * document both come from it. A new domain adds its list here.
 */
export const apiRoutes: AnyRoute[] = [
  ...connectivityRoutes,
  ...customerRoutes,
  ...productRoutes,
  ...stockRoutes,
  ...offerRoutes,
  ...printingRoutes,
  ...cloudPrntRoutes,
  ...templateRoutes,
  ...enrollmentRoutes,
  ...releaseRoutes,
  ...webhookRoutes,
  ...consoleRoutes,
];

export const allRoutes: AnyRoute[] = [...apiRoutes, ...documentationRoutes(apiRoutes)];
