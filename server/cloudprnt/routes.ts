import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { addCloudPrntPrinterBody, addedCloudPrntPrinter } from '../../shared/cloudprnt.ts';
import { dataOf } from '../../shared/http.ts';
import { HttpError } from '../http/errors.ts';
import {
  type AnyRoute,
  created,
  defineRoute,
  noContent,
  publicBody,
  type Reply,
} from '../http/route.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { addCloudPrntPrinter } from './add-printer.ts';
import { answerPoll } from './answer-poll.ts';
import { confirmServedJob } from './confirm-job.ts';
import { epsonSdpRoutes } from './epson-routes.ts';
import { type CallingPrinter, type CloudPrntDeps, callingPrinter } from './member.ts';
import { revokePrinter } from './printer-rows.ts';
import { pollRequestSchema } from './protocol.ts';
import { serveJob } from './serve-job.ts';

/**
 * The one URL a Star CloudPRNT printer is given (docs/cloudprnt.md): it polls with POST,
 * fetches its job with GET and confirms it with DELETE. No API token: each request carries
 * the printer's own HTTP basic credentials (`shopdesk cloudprnt add`), checked here, 401
 * without them. The GET's and DELETE's `token` is CloudPRNT's job token, a claim's number and
 * no credential, which these two routes alone declare (`queryNotCredentials`): everywhere else
 * the pipeline refuses `token=` as a credential in the URL. The answers are CloudPRNT's own,
 * not the API's `{data}` envelope.
 */

const tag = 'CloudPRNT';
const path = '/cloudprnt';
const unauthorised = {
  description: "The printer's user or password is missing, wrong or revoked.",
};

/**
 * The GET's and DELETE's query parameters, as the reference lists them: the ones ShopDesk reads
 * (`token`, the job token the poll handed out, sent back by firmware that knows it; `code`)
 * and those newer firmware adds (`retry`, and the update job's `firmware`, `config`, `skip`,
 * `error`), accepted and left unread.
 */
const text = (max: number) => z.string().max(max).optional();
const jobQuery = z.object({
  uid: text(64),
  mac: text(64),
  type: text(128),
  token: text(64),
  retry: text(16),
  firmware: text(64),
  config: text(64),
  skip: text(16),
  error: text(16),
});

/** The printer the request's basic credentials name, else 401 with a Basic challenge. */
async function printerCalling(
  deps: CloudPrntDeps,
  db: Db,
  request: IncomingMessage,
): Promise<CallingPrinter> {
  const printer = await callingPrinter(deps, db, request.headers.authorization);
  if (printer) return printer;
  throw new HttpError(
    'unauthenticated',
    "The printer's CloudPRNT user and password are missing, wrong or revoked: type in those `shopdesk cloudprnt add` printed.",
    { headers: { 'www-authenticate': 'Basic realm="shopdesk cloudprnt", charset="UTF-8"' } },
  );
}

export const cloudPrntRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/cloudprnt/printers',
    access: { permission: 'printing.agents.write' },
    operationId: 'addCloudPrntPrinter',
    summary: 'Add a Star CloudPRNT or Epson Server Direct Print printer (its password shown once)',
    description:
      'Extension. The printer becomes a print agent of the company (platform `cloudprnt`; with `kind` `epson`, `epson-sdp`, its route rendering ePOS-Print XML) serving `route`, and gets the credentials for its settings (HTTP basic; Epson: its Server Direct Print ID and password, for HTTP Digest); the password is kept only as its hash (and Epson’s Digest HA1). As `shopdesk cloudprnt add [--kind epson]` (docs/cloudprnt.md).',
    tag,
    body: addCloudPrntPrinterBody,
    responses: {
      201: {
        description: 'The values to type into the printer.',
        schema: dataOf(addedCloudPrntPrinter),
      },
    },
    async handler({ body, caller, services, db, baseUrl }) {
      const added = await addCloudPrntPrinter(
        services,
        db,
        { companyId: caller.companyId, route: body.route, name: body.name, kind: body.kind },
        services.clock.now(),
      );
      const url = baseUrl.replace(/\/printers$/, body.kind === 'epson' ? '/epson' : '');
      const record = {
        agent_id: added.agentUuid,
        url,
        user: added.username,
        password: added.password,
      };
      return created(
        record,
        `${url.replace(/\/cloudprnt(?:\/epson)?$/, '')}/printing/agents/${added.agentUuid}`,
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/cloudprnt/printers/{agent}/revoke',
    access: { permission: 'printing.agents.write' },
    operationId: 'revokeCloudPrntPrinter',
    summary: "Revoke a CloudPRNT printer's password",
    description:
      "Extension. The printer's next poll is refused (401); the agent that stands for it stays listed, offline once it is no longer heard. 404 when the company has no CloudPRNT printer with a password by this agent id. As `shopdesk cloudprnt revoke`.",
    tag,
    params: z.object({ agent: z.uuid() }),
    responses: { 204: { description: 'Revoked.' } },
    async handler({ params, caller, services, db }) {
      const now = isoNow(services.clock.now());
      if (!(await revokePrinter(db, caller.companyId, params.agent.toLowerCase(), now))) {
        throw new HttpError('not_found', 'No CloudPRNT printer with a password by this agent id.');
      }
      return noContent();
    },
  }),
  defineRoute({
    method: 'POST',
    path,
    access: 'public',
    operationId: 'cloudPrntPoll',
    summary: 'A CloudPRNT printer polls: its status in, whether a job is ready out',
    description:
      "Star CloudPRNT's poll. The body is the printer's status (`statusCode`, the ASB `status`, client action results); the answer says `jobReady`, the `mediaTypes` the job can be served in, with `jobReady` the `jobToken` naming the claim its GET will make, and client actions asking its type, encodings and poll interval. A poll with nothing to print and nothing new writes nothing.",
    tag,
    ...publicBody,
    body: pollRequestSchema,
    responses: {
      200: { description: 'The CloudPRNT poll answer (JSON, no envelope).' },
      401: unauthorised,
    },
    async handler({ body, services, db, request }) {
      const printer = await printerCalling(services, db, request);
      return { status: 200, body: await answerPoll(services, db, printer, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    path,
    access: 'public',
    operationId: 'cloudPrntFetchJob',
    summary: 'A CloudPRNT printer fetches its job',
    description:
      "The job the printer holds, again, or the next job of its route claimed for it with a lease; its bytes in the media type they are, plain text with the `X-Star-Cut` and `X-Star-CashDrawer` its route's profile asks for. `token`, the poll's `jobToken` sent back, must name the printer's held or next claim. 404 when there is none, the token names another, or the printer last said it cannot print.",
    tag,
    query: jobQuery,
    queryNotCredentials: ['token'],
    responses: {
      200: { description: 'The job, as StarPRNT bytes or plain text.' },
      401: unauthorised,
      404: { description: 'No job for this printer now.' },
    },
    async handler({ query, services, db, request }): Promise<Reply> {
      const printer = await printerCalling(services, db, request);
      const job = await serveJob(services, db, printer, query.token);
      if (!job) throw new HttpError('not_found', 'No job for this printer now.');
      return {
        status: 200,
        body: job.bytes,
        headers: {
          'content-type': job.mediaType,
          'x-shopdesk-job-token': job.token,
          ...job.controls,
        },
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path,
    access: 'public',
    operationId: 'cloudPrntConfirmJob',
    summary: 'A CloudPRNT printer confirms (or fails) its job',
    description:
      '`code` 2xx or `OK`: printed; 520: given back to the queue; any other code fails the job with it. Acts once on the claim the printer holds, and only when `token` (if sent) names it; a repeated DELETE, or one naming another claim, changes nothing.',
    tag,
    query: jobQuery.extend({ code: text(200) }),
    queryNotCredentials: ['token'],
    responses: { 200: { description: 'Recorded (or nothing to do).' }, 401: unauthorised },
    async handler({ query, services, db, request }) {
      const printer = await printerCalling(services, db, request);
      await confirmServedJob(services, db, printer, query);
      return { status: 200, body: { ok: true } };
    },
  }),
  ...epsonSdpRoutes,
];
