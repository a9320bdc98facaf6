import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import {
  type ConsoleAbility,
  type ConsoleRole,
  type ConsoleSessionRecord,
  changePasswordBody,
  consoleSessionRecord,
  consoleTokenRecord,
  consoleUserRecord,
  createConsoleTokenBody,
  invitationRecord,
  inviteUserBody,
  issuedConsoleToken,
  overviewRecord,
  setPasswordBody,
  signInBody,
  tokenParams,
  userParams,
} from '../../shared/console.ts';
import { dataOf } from '../../shared/http.ts';
import { jobParams } from '../../shared/printing.ts';
import { NotFound } from '../domain-errors.ts';
import { HttpError } from '../http/errors.ts';
import { linkOrigin } from '../http/public-origin.ts';
import { type AnyRoute, created, defineRoute, noContent, ok, type Reply } from '../http/route.ts';
import type { Services } from '../services.ts';
import type { Caller, ConsoleCaller } from '../tokens/authenticate.ts';
import { createToken } from '../tokens/create-token.ts';
import { listTokens } from '../tokens/list-tokens.ts';
import { revokeToken } from '../tokens/revoke-token.ts';
import { changePassword } from './change-password.ts';
import { createUser } from './create-user.ts';
import { deleteSession } from './delete-session.ts';
import { deleteUser } from './delete-user.ts';
import { listUsers } from './list-users.ts';
import { readJobDocument } from './read-job-document.ts';
import { readOverview } from './read-overview.ts';
import { readSession } from './read-session.ts';
import { abilitiesOf, grantable, permissionsOf } from './roles.ts';
import { sessionCookie, sessionSecretOf } from './session-caller.ts';
import { setPasswordWithCode } from './set-password.ts';
import { sessionHours, signIn } from './sign-in.ts';

const tag = 'Console';

/** Sign-in tries a minute, per account and per address (the shared rate limiter's store). */
export const signInTriesPerMinute = 10;

/** The person behind a console request; a bearer token is no person: 403. */
function personOf(caller: Caller, ability?: ConsoleAbility): ConsoleCaller {
  const person = caller.session;
  if (!person) {
    throw new HttpError('forbidden', 'This route is for people signed in to the console.');
  }
  if (ability && !abilitiesOf(person.role).includes(ability)) {
    throw new HttpError('forbidden', `The role ${person.role} may not do this (${ability}).`);
  }
  return person;
}

function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  return (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

/** Secure whenever the browser reached us over TLS (directly, or through a trusted proxy). */
function cookieHeader(request: IncomingMessage, services: Services, value: string, maxAge: number) {
  const links = { publicUrl: services.config.publicUrl, trustProxy: services.config.trustProxy };
  const tls = 'encrypted' in request.socket || linkOrigin(links, request).startsWith('https://');
  const secure = tls ? '; Secure' : '';
  return `${sessionCookie}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}

function sessionRecord(
  caller: Caller,
  person: ConsoleCaller,
  createdAt: string,
): ConsoleSessionRecord {
  return {
    user: {
      id: person.userId,
      email: person.email,
      role: person.role,
      active: true,
      created_at: createdAt,
    },
    company: { id: caller.companyId, name: caller.companyName },
    permissions: [...permissionsOf(person.role)],
    abilities: [...abilitiesOf(person.role)],
  };
}

async function takeTry(services: Services, key: string): Promise<void> {
  const tries = services.signInTries;
  if (!tries) return;
  const quota = await tries.take(key);
  if (!quota.allowed) {
    throw new HttpError(
      'rate_limited',
      `Too many sign-in attempts; wait ${quota.resetInSeconds} s and try again.`,
      { headers: { 'retry-after': String(quota.resetInSeconds) } },
    );
  }
}

const sessionRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/console/session',
    access: 'public',
    hidden: true,
    operationId: 'consoleSignIn',
    summary: 'Sign in to the console',
    tag,
    body: signInBody,
    responses: { 200: { description: 'Signed in.', schema: dataOf(consoleSessionRecord) } },
    async handler({ body, request, services, db }) {
      const address = clientAddress(request, services.config.trustProxy === true);
      await takeTry(services, `signin:address:${address}`);
      await takeTry(services, `signin:account:${body.email}`);
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
    access: 'token',
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
    access: 'token',
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
    responses: { 204: { description: 'The password is set; sign in with it.' } },
    async handler({ body, services, db, request }) {
      await takeTry(
        services,
        `signin:address:${clientAddress(request, services.config.trustProxy === true)}`,
      );
      await setPasswordWithCode(services.storage, db, body, services.clock.now());
      return noContent();
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/console/password',
    access: 'token',
    hidden: true,
    operationId: 'consoleChangePassword',
    summary: 'Change one’s password (every session ends)',
    tag,
    body: changePasswordBody,
    responses: { 204: { description: 'Changed; every session of the user has ended.' } },
    async handler({ body, caller, services, db, request }) {
      const person = personOf(caller);
      await takeTry(services, `signin:account:${person.email}`);
      await changePassword(services.storage, db, person.userId, body);
      return { status: 204, headers: { 'set-cookie': cookieHeader(request, services, '', 0) } };
    },
  }),
];

const userRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/console/users',
    access: 'token',
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
    access: 'token',
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
      const links = {
        publicUrl: services.config.publicUrl,
        trustProxy: services.config.trustProxy,
      };
      const setupUrl = `${linkOrigin(links, request)}/console/set-password#code=${made.setupCode}`;
      return created(
        { user: made.user, setup_url: setupUrl, expires_at: made.expiresAt },
        `${baseUrl}/${made.user.id}`,
      );
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/console/users/{user}',
    access: 'token',
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

const tokenRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/console/tokens',
    access: 'token',
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
    access: 'token',
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
      const allowed = grantable(person.role);
      const beyond = body.permissions.filter((permission) => !allowed.includes(permission));
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
    access: 'token',
    hidden: true,
    operationId: 'consoleRevokeToken',
    summary: 'Revoke an API token at once',
    tag,
    params: tokenParams,
    responses: { 204: { description: 'Revoked.' } },
    async handler({ params, caller, services, db }) {
      personOf(caller, 'tokens.manage');
      // revokeToken takes any id: the company's own only.
      const own = (await listTokens(db, caller.companyId)).some((t) => t.id === params.token);
      if (!own) throw new NotFound('Token');
      await revokeToken(db, params.token, services.clock.now());
      return noContent();
    },
  }),
];

const overviewRoute = defineRoute({
  method: 'GET',
  path: '/console/overview',
  access: { permission: 'printing.jobs.read' },
  hidden: true,
  operationId: 'consoleOverview',
  summary: 'The overview page: agents, printers needing attention, jobs of 24 h, failing webhooks',
  tag,
  responses: { 200: { description: 'The overview.', schema: dataOf(overviewRecord) } },
  async handler({ caller, services, db }) {
    return ok(await readOverview(db, caller.companyId, services.printing.presence()));
  },
});

const documentRoute = defineRoute({
  method: 'GET',
  path: '/console/jobs/{job}/document',
  access: { permission: 'printing.jobs.read' },
  hidden: true,
  operationId: 'consoleJobDocument',
  summary: "A job's document, to show (never to run): PDF inline, anything else as bytes",
  tag,
  params: jobParams,
  responses: { 200: { description: 'The document.' } },
  async handler({ params, caller, db }) {
    const document = await readJobDocument(db, caller.companyId, params.job);
    const pdf = document.contentType === 'application/pdf';
    return {
      status: 200,
      body: document.content,
      headers: {
        // Only a PDF is shown as what it is; anything else as bytes the page renders as text.
        'content-type': pdf ? 'application/pdf' : 'application/octet-stream',
        'content-disposition': pdf ? 'inline' : 'attachment',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      },
    };
  },
});

/** How often an open stream checks that its caller is still signed in (or its token valid). */
const recheckMs = 2000;

const streamRoute = defineRoute({
  method: 'GET',
  path: '/events/stream',
  access: { permission: 'printing.jobs.read' },
  operationId: 'streamEvents',
  summary: "Live changes of the company's jobs, agents and webhooks (Server-Sent Events)",
  description:
    "Extension. `text/event-stream`: an event `change` whose data and id are the company's version (an opaque text) each time a job, an agent or a webhook endpoint changes, within a second, whichever instance made the change; then read what you show again. On reconnection with `Last-Event-ID`, a `change` comes at once if anything changed while away. A comment line every 15 s keeps proxies from closing it. Ends when the token is revoked or the console session ends.",
  tag: 'Events',
  responses: {
    200: { description: 'The stream (`text/event-stream`).' },
  },
  async handler({ caller, services, request, signal, stillAuthenticated }): Promise<Reply> {
    const live = services.live;
    const stream = new PassThrough();
    const seen = request.headers['last-event-id'];
    let last = typeof seen === 'string' ? seen : undefined;
    const send = (version: string) => {
      if (version === last) return;
      last = version;
      stream.write(`id: ${version}\nevent: change\ndata: ${version}\n\n`);
    };
    stream.write('retry: 1000\n\n');
    const stop = live.subscribe(caller.companyId, send);
    live.current(caller.companyId).then(send, () => {});
    const secret = sessionSecretOf(request);
    const stillSignedIn = async () =>
      caller.session
        ? secret !== undefined &&
          (await readSession(services.storage.db, secret, services.clock.now())) !== null
        : stillAuthenticated();
    const recheck = setInterval(() => {
      stillSignedIn().then(
        (yes) => yes || stream.end(),
        () => {},
      );
    }, recheckMs);
    const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), 15_000);
    const end = () => {
      clearInterval(recheck);
      clearInterval(keepAlive);
      stop();
      stream.end();
    };
    signal.addEventListener('abort', end, { once: true });
    stream.on('close', end);
    return {
      status: 200,
      body: stream,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    };
  },
});

/** The console's own routes (hidden from the API document), and the live stream (shown). */
export const consoleRoutes: AnyRoute[] = [
  ...sessionRoutes,
  ...userRoutes,
  ...tokenRoutes,
  overviewRoute,
  documentRoute,
  streamRoute,
];
