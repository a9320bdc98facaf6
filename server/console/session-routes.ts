import {
  changePasswordBody,
  consoleSessionRecord,
  setPasswordBody,
  signInBody,
} from '../../shared/console.ts';
import { dataOf } from '../../shared/http.ts';
import { HttpError } from '../http/errors.ts';
import { type AnyRoute, defineRoute, noContent, ok, publicBody } from '../http/route.ts';
import type { Caller } from '../tokens/index.ts';
import { changePassword } from './change-password.ts';
import { deleteSession } from './delete-session.ts';
import {
  clientAddress,
  cookieHeader,
  personOf,
  sessionRecord,
  tag,
  takeTry,
} from './person-routes.ts';
import { readSession } from './read-session.ts';
import { setPasswordWithCode } from './set-password.ts';
import { sessionHours, signIn } from './sign-in.ts';

/** Sign-in, sign-out, who is signed in, and passwords. */
export const sessionRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/console/session',
    access: 'public',
    hidden: true,
    operationId: 'consoleSignIn',
    summary: 'Sign in to the console',
    tag,
    body: signInBody,
    ...publicBody,
    responses: { 200: { description: 'Signed in.', schema: dataOf(consoleSessionRecord) } },
    async handler({ body, request, services, db }) {
      // Every request after this one would be refused for that header (handle-request.ts):
      // say so now, where the person reads it, rather than sign in to a console that cannot work.
      if (request.headers.authorization !== undefined) {
        throw new HttpError(
          'unauthenticated',
          'This browser sends an Authorization header with its requests (a password a proxy in front asked for), and the console cannot work with it: ask IT to stop the proxy from passing that header on to ShopDesk (docs/deploy.md).',
        );
      }
      const address = clientAddress(request, services.config.trustProxy === true);
      await takeTry(services, 'addresses', `signin:address:${address}`);
      await takeTry(services, 'accounts', `signin:account:${body.email}`);
      const opened = await signIn(db, body, services.clock.now());
      if (!opened) {
        throw new HttpError('unauthenticated', 'The e-mail or password is incorrect.');
      }
      const session = await readSession(db, opened.secret, services.clock.now());
      if (!session) throw new HttpError('unauthenticated', 'The e-mail or password is incorrect.');
      const person = {
        sessionId: session.id,
        userId: session.userId,
        email: session.email,
        role: session.role,
      };
      const caller = { companyId: session.companyId, companyName: session.companyName } as Caller;
      return {
        status: 200,
        body: { data: sessionRecord(caller, person, session.createdAt) },
        headers: {
          'set-cookie': cookieHeader(request, services, opened.secret, sessionHours * 3600),
          'cache-control': 'no-store',
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/console/session',
    access: 'session',
    hidden: true,
    operationId: 'consoleSession',
    summary: 'Who is signed in',
    tag,
    responses: { 200: { description: 'The session.', schema: dataOf(consoleSessionRecord) } },
    async handler({ caller }) {
      const person = personOf(caller);
      return { ...ok(sessionRecord(caller, person, '')), headers: { 'cache-control': 'no-store' } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/console/session',
    access: 'session',
    hidden: true,
    operationId: 'consoleSignOut',
    summary: 'Sign out',
    tag,
    responses: { 204: { description: 'Signed out, on every instance.' } },
    async handler({ caller, request, services, db }) {
      const person = personOf(caller);
      await deleteSession(db, person.sessionId);
      return { status: 204, headers: { 'set-cookie': cookieHeader(request, services, '', 0) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/console/password',
    access: 'public',
    hidden: true,
    operationId: 'consoleSetPassword',
    summary: 'Set a password with the one-time link',
    tag,
    body: setPasswordBody,
    ...publicBody,
    responses: { 204: { description: 'The password is set; sign in with it.' } },
    async handler({ body, services, db, request }) {
      await takeTry(
        services,
        'addresses',
        `signin:address:${clientAddress(request, services.config.trustProxy === true)}`,
      );
      await setPasswordWithCode(services.storage, db, body, services.clock.now());
      return noContent();
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/console/password',
    access: 'session',
    hidden: true,
    operationId: 'consoleChangePassword',
    summary: 'Change one’s password (every session ends)',
    tag,
    body: changePasswordBody,
    responses: { 204: { description: 'Changed; every session of the user has ended.' } },
    async handler({ body, caller, services, db, request }) {
      const person = personOf(caller);
      await takeTry(services, 'accounts', `signin:account:${person.email}`);
      await changePassword(services.storage, db, person.userId, body);
      return { status: 204, headers: { 'set-cookie': cookieHeader(request, services, '', 0) } };
    },
  }),
];
