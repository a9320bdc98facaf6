import { describe, expect, it } from 'vitest';
import { groupedPermissions, permissionPresets } from '../../shared/permission-groups.ts';
import { permissions } from '../../shared/permissions.ts';

/** The Tokens page's areas (shared/permission-groups.ts) against the permission registry. */
describe('permissions grouped by area', () => {
  it('name every permission once, and no other', () => {
    expect([...groupedPermissions].sort()).toEqual([...permissions].sort());
    expect(new Set(groupedPermissions).size).toBe(groupedPermissions.length);
  });

  it('offer in presets only what the person may grant: a till creates and reads jobs', () => {
    const pick = (name: string, grantable: readonly (typeof permissions)[number][]) =>
      permissionPresets.find((preset) => preset.name.startsWith(name))!.pick(grantable);
    expect(pick('Till', permissions)).toEqual(['printing.jobs.create', 'printing.jobs.read']);
    expect(pick('Till', ['printing.jobs.read'])).toEqual(['printing.jobs.read']);
    expect(pick('Read only', permissions).every((p) => p.endsWith('.read'))).toBe(true);
    expect(pick('Everything', ['offers.read', 'webhooks.manage'])).toEqual([
      'offers.read',
      'webhooks.manage',
    ]);
  });
});
