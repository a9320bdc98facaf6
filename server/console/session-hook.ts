import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http/errors.ts';
import type { LinkPolicy } from '../http/public-origin.ts';
import type { RouteHookSource } from '../http/route.ts';
import { requireSameOrigin } from '../http/same-origin.ts';
import { bearerOf } from '../tokens/index.ts';
import { type SessionAuthenticator, sessionSecretOf } from './session-caller.ts';

/**
 * The web console's session on every route (the wiring installs it when the console is on):
 * a person signed in is a caller by the session's cookie when the request sends no
 * `Authorization`, and a change that carries the cookie must come from a page of this server.
 *
 * CSRF by credential: a change that carries the console's cookie comes from our pages; so
 * does a console sign-in from a browser (one without Origin is no browser, and has no cookie
 * to abuse). Only a bearer token spares the check: a browser attaches any other Authorization
 * (a proxy's HTTP Basic password) by itself, like the cookie, and such a header is refused
 * by the pipeline anyway, never read as the cookie's request. Other public routes stay open
 * to the browser apps CORS lets in. (A program's request, with neither a cookie nor an
 * Origin, skips the token's pattern here.)
 */
export function consoleSessionHook(
  sessions: SessionAuthenticator,
  links: LinkPolicy | undefined,
): RouteHookSource {
  const authenticate = (request: IncomingMessage) => {
    const secret = sessionSecretOf(request);
    if (secret === undefined) return undefined;
    return sessions.authenticate(secret).then((caller) => {
      if (caller) return caller;
      throw new HttpError('unauthenticated', 'The session has ended: sign in again.');
    });
  };
  return (route) => {
    const consoleRoute = route.path.startsWith('/console/');
    return {
      onRequest(request) {
        const { cookie, origin } = request.headers;
        if (cookie === undefined && origin === undefined) return;
        if (bearerOf(request) !== undefined) return;
        if (sessionSecretOf(request) !== undefined) requireSameOrigin(request, links);
        else if (origin !== undefined && consoleRoute) requireSameOrigin(request, links);
      },
      authenticate,
    };
  };
}
