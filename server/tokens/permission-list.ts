import { permissions as allPermissions, type Permission } from '../../shared/permissions.ts';

/** Parses `*` or a comma-separated list; unknown names are reported, not ignored. */
export function parsePermissionList(list: string): Permission[] {
  const trimmed = list.trim();
  if (trimmed === '*') return [...allPermissions];
  const names = trimmed
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error('--permissions needs at least one permission, or *');
  const unknown = names.filter((name) => !(allPermissions as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown permission ${unknown.join(', ')}; known: ${allPermissions.join(', ')}`,
    );
  }
  return [...new Set(names)] as Permission[];
}
