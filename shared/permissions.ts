import { z } from 'zod';

/**
 * The API's permissions, plus our extensions: the print queue's and webhooks' (docs/reference.md,
 * docs/webhooks.md).
 */
export const permissions = [
  'customers.read',
  'customers.create',
  'customers.update',
  'products.read',
  'products.create',
  'products.update',
  'products.delete',
  'products.price.update',
  'offers.read',
  'offers.create',
  'offers.update',
  'offers.delete',
  'offers.quote',
  'inventory.stock.update',
  'printing.agent',
  'printing.jobs.create',
  'printing.jobs.read',
  'printing.agents.write',
  'printing.templates.read',
  'printing.templates.write',
  'webhooks.manage',
] as const;

export const permissionSchema = z.enum(permissions);
export type Permission = z.infer<typeof permissionSchema>;

/** What the agent token printed by `npm start` on a fresh database carries. */
export const agentPermissions: Permission[] = ['printing.agent'];
