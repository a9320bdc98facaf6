import type { ConsoleAbility, ConsoleRole } from '../../shared/console.ts';
import { type Permission, permissions } from '../../shared/permissions.ts';

/**
 * What each role of the console may do, in the API's permissions (so that a signed-in
 * person passes the very checks a token passes) and in the console's own abilities.
 *
 * - owner: everything, and the company's console users;
 * - manager: jobs, agents, templates (read and write), webhooks, tokens;
 * - staff: see jobs and printers, retry, reprint, cancel; read templates and preview them
 *   (a receipt's layout is no secret to the people who print it), never change them.
 *
 * `printing.agent` is never given: a person is not a print agent, and it would let a
 * session act as one (claim jobs, report printers).
 */
const everything = permissions.filter((permission) => permission !== 'printing.agent');

const rolePermissions: Record<ConsoleRole, readonly Permission[]> = {
  owner: everything,
  manager: [
    'printing.jobs.read',
    'printing.jobs.create',
    'printing.agents.write',
    'printing.templates.read',
    'printing.templates.write',
    'webhooks.manage',
  ],
  staff: ['printing.jobs.read', 'printing.jobs.create', 'printing.templates.read'],
};

const roleAbilities: Record<ConsoleRole, readonly ConsoleAbility[]> = {
  owner: ['tokens.manage', 'users.manage'],
  manager: ['tokens.manage'],
  staff: [],
};

export const permissionsOf = (role: ConsoleRole): readonly Permission[] => rolePermissions[role];
export const abilitiesOf = (role: ConsoleRole): readonly ConsoleAbility[] => roleAbilities[role];

/** The permissions a role may hand to a token it makes: never more than its own. */
export function grantable(role: ConsoleRole): readonly Permission[] {
  return role === 'owner' ? permissions : rolePermissions[role];
}
