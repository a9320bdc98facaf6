import { z } from 'zod';
import { HttpError } from '../http/errors.ts';
import { type AnyRoute, defineRoute, publicBody, type Reply } from '../http/route.ts';
import { digestChallenge } from './digest.ts';
import { parseSdpForm } from './epson-sdp.ts';
import { callingEpsonPrinter } from './member.ts';
import { answerPrintRequest, recordPrintResult, recordStatusNotification } from './serve-sdp.ts';

/**
 * The URL an Epson printer's Server Direct Print and Status Notification are given
 * (docs/cloudprnt.md): one form POST for its print requests, its printing results and its
 * status notifications, each carrying
 * the printer's HTTP Digest answer to the challenge of its dummy request (`shopdesk cloudprnt
 * add --kind epson`). The answers are Server Direct Print's own: ePOS-Print XML, or an empty
 * 200 when there is nothing to print.
 */

const field = (max: number) => z.string().max(max).optional();

/** The form's fields as the manual lists them; a result file is a few hundred bytes a job. */
const sdpForm = z.object({
  ConnectionType: z.string().max(32),
  ID: field(64),
  Name: field(255),
  ResponseFile: field(30_000),
  Status: field(4096),
});

const xml = (text: string): Reply => ({
  status: 200,
  body: Buffer.from(text, 'utf8'),
  headers: { 'content-type': 'text/xml; charset=utf-8' },
});

export const epsonSdpRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/cloudprnt/epson',
    access: 'public',
    operationId: 'epsonServerDirectPrint',
    summary: 'An Epson printer asks for work, or reports a printing result',
    description:
      "Epson Server Direct Print. `ConnectionType=GetRequest`: the answer is the next job of the printer's route as `<PrintRequestInfo>` (ePOS-Print XML, its claim token as `printjobid`), or an empty 200 when there is none. `SetResponse`: the `ResponseFile` confirms, gives back (no paper, cover open) or fails the claim the printer holds, once. `SetStatus`: the status notification's ASB bits are the printer's state (no paper, cover open, an error, offline: its print requests are answered empty while it says so; paper low: a warning). Authenticated by HTTP Digest (MD5, qop auth): 401 with the challenge without it.",
    tag: 'CloudPRNT',
    bodyType: 'form',
    ...publicBody,
    bodyLimit: 64 * 1024,
    body: sdpForm,
    responses: {
      200: { description: 'PrintRequestInfo XML, or empty.' },
      401: { description: "The printer's Digest answer is missing, wrong, stale or revoked." },
    },
    async handler({ body, services, db, request }): Promise<Reply> {
      const printer = await callingEpsonPrinter(services, db, {
        authorization: request.headers.authorization,
        method: request.method ?? 'POST',
        path: new URL(request.url ?? '/', 'http://printer').pathname,
      });
      if (printer === undefined || printer === 'stale') {
        throw new HttpError(
          'unauthenticated',
          "The printer's Server Direct Print ID and password are missing, wrong or revoked: type in those `shopdesk cloudprnt add --kind epson` printed.",
          { headers: { 'www-authenticate': digestChallenge(services.clock.now(), !!printer) } },
        );
      }
      const form = parseSdpForm(new URLSearchParams(body).toString());
      if (!form) {
        throw new HttpError(
          'validation_failed',
          'ConnectionType must be GetRequest, SetResponse or SetStatus.',
        );
      }
      if (form.kind === 'GetRequest') return xml(await answerPrintRequest(services, db, printer));
      if (form.kind === 'SetResponse') {
        await recordPrintResult(services, db, printer, form.responseFile);
      } else {
        await recordStatusNotification(services, db, printer, form.status);
      }
      return xml('');
    },
  }),
];
