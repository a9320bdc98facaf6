import { z } from 'zod';
import {
  type ConsoleRole,
  changeRoleBody,
  consoleTokenRecord,
  consoleUserRecord,
  createConsoleTokenBody,
  invitationRecord,
  inviteUserBody,
  issuedConsoleToken,
  passwordResetRecord,
  tokenParams,
  userParams,
} from '../../shared/console.ts';
import { dataOf } from '../../shared/http.ts';
import type { Permission } from '../../shared/permissions.ts';
import { NotFound } from '../domain-errors.ts';
import { HttpError } from '../http/errors.ts';
import { linkOrigin } from '../http/public-origin.ts';
import { type AnyRoute, created, defineRoute, noContent, ok } from '../http/route.ts';
import { createToken, listTokens, revokeToken } from '../tokens/index.ts';
import { changeRole } from './change-role.ts';
import { createUser } from './create-user.ts';
import { deleteUser } from './delete-user.ts';
import { listUsers } from './list-users.ts';
import { personOf, tag } from './person-routes.ts';
import { resetPassword } from './reset-password.ts';
import { grantable } from './roles.ts';

/** The company's console users (owners) and API tokens (owners and managers). */
export const userRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/console/users',
    access: 'session',
    hidden: true,
    operationId: 'consoleListUsers',
    summary: "The company's console users",
    tag,
    responses: { 200: { description: 'The users.', schema: dataOf(z.array(consoleUserRecord)) } },
    async handler({ caller, db }) {
      personOf(caller, 'users.manage');
      return ok(await listUsers(db, caller.companyId));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/console/users',
    access: 'session',
    hidden: true,
    operationId: 'consoleInviteUser',
    summary: 'Invite a console user (a one-time link sets the password)',
    tag,
    body: inviteUserBody,
    responses: { 201: { description: 'The user and the link.', schema: dataOf(invitationRecord) } },
    async handler({ body, caller, services, db, request, baseUrl }) {
      personOf(caller, 'users.manage');
      const made = await createUser(
        db,
        { companyId: caller.companyId, email: body.email, role: body.role as ConsoleRole },
        services.clock.now(),
      );
      return created(
        {
          user: made.user,
          setup_url: setupUrl(services, request, made.setupCode),
          expires_at: made.expiresAt,
        },
        `${baseUrl}/${made.user.id}`,
      );
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/console/users/{user}',
    access: 'session',
    hidden: true,
    operationId: 'consoleRemoveUser',
    summary: 'Remove a console user (their sessions end at once)',
    tag,
    params: userParams,
    responses: { 204: { description: 'Removed.' } },
    async handler({ params, caller, services, db }) {
      personOf(caller, 'users.manage');
      await deleteUser(services.storage, db, caller.companyId, params.user);
      return noContent();
    },
  }),
];

function setupUrl(
  services: { config: { publicUrl?: string | undefined; trustProxy?: boolean | undefined } },
  request: Parameters<typeof linkOrigin>[1],
  code: string,
): string {
  const links = { publicUrl: services.config.publicUrl, trustProxy: services.config.trustProxy };
  return `${linkOrigin(links, request)}/console/set-password#code=${code}`;
}

/** An owner changes someone's role, or resets their password with a one-time link. */
export const userAdminRoutes: AnyRoute[] = [
  defineRoute({
    method: 'PATCH',
    path: '/console/users/{user}',
    access: 'session',
    hidden: true,
    operationId: 'consoleChangeRole',
    summary: "Change a console user's role",
    tag,
    params: userParams,
    body: changeRoleBody,
    responses: { 200: { description: 'The user.', schema: dataOf(consoleUserRecord) } },
    async handler({ params, body, caller, services, db }) {
      personOf(caller, 'users.manage');
      return ok(await changeRole(services.storage, db, caller.companyId, params.user, body.role));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/console/users/{user}/password-reset',
    access: 'session',
    hidden: true,
    operationId: 'consoleResetPassword',
    summary: "Reset a user's password: a one-time link sets a new one",
    tag,
    params: userParams,
    responses: { 200: { description: 'The link.', schema: dataOf(passwordResetRecord) } },
    async handler({ params, caller, services, db, request }) {
      personOf(caller, 'users.manage');
      const reset = await resetPassword(
        services.storage,
        db,
        caller.companyId,
        params.user,
        services.clock.now(),
      );
      return ok({
        setup_url: setupUrl(services, request, reset.setupCode),
        expires_at: reset.expiresAt,
      });
    },
  }),
];

/** The permissions of a token that the role may not grant (none: the role may make or revoke it). */
function beyondRole(role: ConsoleRole, permissions: readonly Permission[]): Permission[] {
  const allowed = grantable(role);
  return permissions.filter((permission) => !allowed.includes(permission));
}

export const tokenRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/console/tokens',
    access: 'session',
    hidden: true,
    operationId: 'consoleListTokens',
    summary: "The company's API tokens (never their secrets)",
    tag,
    responses: { 200: { description: 'The tokens.', schema: dataOf(z.array(consoleTokenRecord)) } },
    async handler({ caller, db }) {
      personOf(caller, 'tokens.manage');
      return ok(await listTokens(db, caller.companyId));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/console/tokens',
    access: 'session',
    hidden: true,
    operationId: 'consoleCreateToken',
    summary: 'Make an API token (its secret shown once)',
    tag,
    body: createConsoleTokenBody,
    responses: {
      201: { description: 'The token and its secret.', schema: dataOf(issuedConsoleToken) },
    },
    async handler({ body, caller, services, db, baseUrl }) {
      const person = personOf(caller, 'tokens.manage');
      const beyond = beyondRole(person.role, body.permissions);
      if (beyond.length > 0) {
        throw new HttpError(
          'forbidden',
          `The role ${person.role} may not grant ${beyond.join(', ')}.`,
        );
      }
      const issued = await createToken(
        db,
        {
          companyId: caller.companyId,
          name: body.name,
          permissions: body.permissions,
          ...(body.expires_in_days !== undefined && { expiresInDays: body.expires_in_days }),
        },
        services.clock.now(),
      );
      const record = (await listTokens(db, caller.companyId)).find((t) => t.id === issued.id)!;
      return created({ ...record, secret: issued.secret }, `${baseUrl}/${issued.id}`);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/console/tokens/{token}/revoke',
    access: 'session',
    hidden: true,
    operationId: 'consoleRevokeToken',
    summary: 'Revoke an API token at once',
    tag,
    params: tokenParams,
    responses: { 204: { description: 'Revoked.' } },
    async handler({ params, caller, services, db }) {
      const person = personOf(caller, 'tokens.manage');
      // revokeToken takes any id: the company's own only.
      const token = (await listTokens(db, caller.companyId)).find((t) => t.id === params.token);
      if (!token) throw new NotFound('Token');
      // The rule of creation: a manager stops only what it could have made, so a token with
      // permissions beyond the role's (an owner's `*` token, an agent's) stays an owner's.
      const beyond = beyondRole(person.role, token.permissions);
      if (beyond.length > 0) {
        throw new HttpError(
          'forbidden',
          `The role ${person.role} may not revoke a token with ${beyond.join(', ')}.`,
        );
      }
      await revokeToken(db, params.token, services.clock.now());
      services.tokenCache?.changed();
      return noContent();
    },
  }),
];
