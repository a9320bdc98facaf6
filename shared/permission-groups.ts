import type { Permission } from './permissions.ts';

/**
 * The permissions as people choose them (the console's Tokens page): by area, each in words,
 * and the presets a token is usually made with. Plain data, no zod: the console bundles it;
 * test/shared/permission-groups.test.ts keeps it in step with shared/permissions.ts.
 */
export const permissionGroups: ReadonlyArray<{
  area: string;
  permissions: ReadonlyArray<{ permission: Permission; words: string }>;
}> = [
  {
    area: 'Printing',
    permissions: [
      { permission: 'printing.jobs.create', words: 'Send print jobs' },
      { permission: 'printing.jobs.read', words: 'See print jobs and agents' },
      { permission: 'printing.agents.write', words: 'Manage agents and enrolment codes' },
      { permission: 'printing.templates.read', words: 'See templates' },
      { permission: 'printing.templates.write', words: 'Change templates' },
      { permission: 'printing.agent', words: 'Act as a print agent' },
    ],
  },
  {
    area: 'Customers and suppliers',
    permissions: [
      { permission: 'customers.read', words: 'See customers' },
      { permission: 'customers.create', words: 'Add customers' },
      { permission: 'customers.update', words: 'Change customers' },
    ],
  },
  {
    area: 'Products',
    permissions: [
      { permission: 'products.read', words: 'See products' },
      { permission: 'products.create', words: 'Add products' },
      { permission: 'products.update', words: 'Change products' },
      { permission: 'products.delete', words: 'Delete products' },
      { permission: 'products.price.update', words: 'Change prices' },
    ],
  },
  {
    area: 'Offers',
    permissions: [
      { permission: 'offers.read', words: 'See offers' },
      { permission: 'offers.create', words: 'Make offers' },
      { permission: 'offers.update', words: 'Change offers' },
      { permission: 'offers.delete', words: 'Delete offers' },
      { permission: 'offers.quote', words: 'Quote prices' },
    ],
  },
  {
    area: 'Stock',
    permissions: [{ permission: 'inventory.stock.update', words: 'Set stock levels' }],
  },
  {
    area: 'Webhooks',
    permissions: [{ permission: 'webhooks.manage', words: 'Manage webhook endpoints' }],
  },
];

/** Every permission in the groups, in their order. */
export const groupedPermissions: Permission[] = permissionGroups.flatMap((group) =>
  group.permissions.map((entry) => entry.permission),
);

/**
 * The usual tokens: a till (sends and reads print jobs), a reader of everything, and
 * everything the person may grant. A preset offers only what the person may grant.
 */
export const permissionPresets: ReadonlyArray<{
  name: string;
  pick: (grantable: readonly Permission[]) => Permission[];
}> = [
  {
    name: 'Till: create and read print jobs',
    pick: (grantable) =>
      (['printing.jobs.create', 'printing.jobs.read'] as const).filter((p) =>
        grantable.includes(p),
      ),
  },
  {
    name: 'Read only',
    pick: (grantable) => grantable.filter((permission) => permission.endsWith('.read')),
  },
  { name: 'Everything', pick: (grantable) => [...grantable] },
];
