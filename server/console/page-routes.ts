import { PassThrough } from 'node:stream';
import { overviewRecord } from '../../shared/console.ts';
import { dataOf } from '../../shared/http.ts';
import { jobParams } from '../../shared/printing.ts';
import { HttpError } from '../http/errors.ts';
import { defineRoute, ok, type Reply } from '../http/route.ts';
import { readJobDocument } from '../printing/index.ts';
import type { Caller } from '../tokens/index.ts';
import { personOf, tag } from './person-routes.ts';
import { readOverview } from './read-overview.ts';
import { readSession } from './read-session.ts';
import { sessionSecretOf } from './session-caller.ts';

/**
 * The console's pages are for people (docs/reference.md: a bearer token gets 403); of the
 * people, those who may read jobs, which every role may today.
 */
function readerOf(caller: Caller): void {
  const person = personOf(caller);
  if (!caller.permissions.has('printing.jobs.read')) {
    throw new HttpError('forbidden', `The role ${person.role} may not read jobs.`);
  }
}

export const overviewRoute = defineRoute({
  method: 'GET',
  path: '/console/overview',
  access: 'session',
  hidden: true,
  operationId: 'consoleOverview',
  summary: 'The overview page: agents, printers needing attention, jobs of 24 h, failing webhooks',
  tag,
  responses: { 200: { description: 'The overview.', schema: dataOf(overviewRecord) } },
  async handler({ caller, services, db }) {
    readerOf(caller);
    const { companyId } = caller;
    return ok(
      await services.live.reads.read(`overview:${companyId}`, () =>
        readOverview(db, companyId, services.printing.presence()),
      ),
    );
  },
});

export const documentRoute = defineRoute({
  method: 'GET',
  path: '/console/jobs/{job}/document',
  access: 'session',
  hidden: true,
  operationId: 'consoleJobDocument',
  summary: "A job's document, to show (never to run): PDF inline, anything else as bytes",
  tag,
  params: jobParams,
  responses: { 200: { description: 'The document.' } },
  async handler({ params, caller, db }) {
    readerOf(caller);
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
        // A PDF is shown by the browser's viewer, which a sandboxed document cannot load.
        'content-security-policy': pdf ? "default-src 'none'" : "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      },
    };
  },
});

/** How often an open stream checks that its caller is still signed in (or its token valid). */
const recheckMs = 2000;

export const streamRoute = defineRoute({
  method: 'GET',
  path: '/events/stream',
  access: { permission: 'printing.jobs.read' },
  operationId: 'streamEvents',
  summary: "Live changes of the company's jobs, agents and webhooks (Server-Sent Events)",
  description:
    "Extension. `text/event-stream`: an event `change` whose data and id are the company's version (an opaque text that counts nothing) each time one of the company's own jobs, agents or webhook endpoints changes, within a second, whichever instance made the change; then read what you show again. On reconnection with `Last-Event-ID`, a `change` comes at once if anything changed while away. A comment line every 15 s keeps proxies from closing it. Ends when the token is revoked or the console session ends.",
  tag: 'Events',
  responses: {
    200: { description: 'The stream (`text/event-stream`).' },
    400: { description: 'Asked without `Accept: text/event-stream`.' },
  },
  async handler({ caller, services, request, signal, stillAuthenticated }): Promise<Reply> {
    if (!String(request.headers.accept ?? '').includes('text/event-stream')) {
      throw new HttpError(
        'bad_request',
        'This is an event stream: send Accept: text/event-stream.',
      );
    }
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
