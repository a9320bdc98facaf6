import { z } from 'zod';
import { idParam, idSchema, pageQuery, recordId, timestamp } from './http.ts';
import { colorModes, duplexModes, paperSchema } from './printer-capabilities.ts';
import { agentPrinterSchema, printerInfoSchema } from './printer-info.ts';
import { printerProfileSchema } from './printer-profiles.ts';
import { waitReasonSchema } from './wait-reasons.ts';

/**
 * Contracts of the print queue (docs/reference.md: the print-agent routes and the print
 * queue's contract).
 * The server validates requests with these and the agent validates responses with them.
 */

export const routeNameSchema = z
  .string()
  .regex(
    /^[a-z0-9._-]{1,64}$/,
    'The :attribute field must be 1 to 64 characters of a-z, 0-9, ".", "_" or "-".',
  );

export const contentTypes = [
  'application/pdf',
  'application/vnd.zebra.zpl',
  'application/vnd.escpos',
  'application/vnd.star.starprnt',
  'text/plain',
  'application/vnd.epson.epos-print+xml',
] as const;
export const contentTypeSchema = z.enum(contentTypes);
export type ContentType = z.infer<typeof contentTypeSchema>;

/**
 * A template job's content until an agent claims it: the data, as JSON, rendered at the
 * claim for the claiming agent's route profile (docs/templates.md). Never sent to an agent.
 */
export const templateDataType = 'application/vnd.shopdesk.template-data+json';
export const jobContentTypeSchema = z.enum([...contentTypes, templateDataType]);
export type JobContentType = z.infer<typeof jobContentTypeSchema>;

/** Content types that go to the printer as raw bytes (`lp -o raw`, winspool RAW). */
export const rawContentTypes: readonly ContentType[] = [
  'application/vnd.zebra.zpl',
  'application/vnd.escpos',
  'application/vnd.star.starprnt',
];

export const jobStatuses = [
  'queued',
  'claimed',
  'printed',
  'failed',
  'expired',
  'cancelled',
] as const;
export const jobStatusSchema = z.enum(jobStatuses);
export type JobStatus = z.infer<typeof jobStatusSchema>;

/** The closed set of print options (docs/printing.md says how each back-end applies them). */
export const printOptionsSchema = z.strictObject({
  paper: paperSchema.optional(),
  duplex: z.enum(duplexModes).optional(),
  color: z.enum(colorModes).optional(),
  orientation: z.enum(['portrait', 'landscape']).optional(),
  fit: z.boolean().optional(),
  pages: z
    .string()
    .max(100)
    .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'The :attribute field must be a page list like "1-3,5".')
    .optional(),
});
export type PrintOptions = z.infer<typeof printOptionsSchema>;

export {
  type AgentPrinter,
  agentPrinterSchema,
  type PrinterInfo,
  type PrinterState,
  printerInfoSchema,
  printerStateReasonSchema,
  printerStateSchema,
  printerStates,
} from './printer-info.ts';

// ---- agents -------------------------------------------------------------------------

export const agentIdHeader = 'x-agent-id';

export const registerAgentBody = z.object({
  uuid: z.uuid(),
  name: z.string().min(1).max(255),
  hostname: z.string().min(1).max(255),
  platform: z.string().min(1).max(32),
  version: z.string().min(1).max(64),
  printers: z.array(printerInfoSchema).max(500).default([]),
});
export type RegisterAgentBody = z.infer<typeof registerAgentBody>;

export const agentRecord = z.object({
  id: z.string(),
  name: z.string(),
  hostname: z.string(),
  platform: z.string(),
  version: z.string(),
  printers: z.array(agentPrinterSchema),
  paused: z.boolean(),
  online: z.boolean(),
  last_seen_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type AgentRecord = z.infer<typeof agentRecord>;

export const heartbeatBody = z.object({
  printers: z.array(printerInfoSchema).max(500).optional(),
  paused: z.boolean().optional(),
  /** Jobs the agent still holds; their leases are extended. */
  held_job_ids: z.array(idSchema).max(1000).default([]),
});
export type HeartbeatBody = z.infer<typeof heartbeatBody>;

export const heartbeatResult = z.object({
  server_time: timestamp,
  /** Held jobs whose lease was extended. */
  extended_job_ids: z.array(recordId),
  /** Jobs the agent says it holds that the server no longer gives it (lease ran out, ...). */
  released_job_ids: z.array(recordId),
  lease_expires_at: timestamp.nullable(),
  /**
   * Moves on at every change of the agent's routes (by the agent or in the console): an agent
   * that sees another than it last read fetches `GET /printing/config` again. Absent from
   * servers before it.
   */
  routes_version: z.number().int().optional(),
});
export type HeartbeatResult = z.infer<typeof heartbeatResult>;

// ---- routes and config ----------------------------------------------------------------

/**
 * A printer name that is not one of the operating system's printers: `folder:DIR`, and any
 * name that starts like a URI or a drive (`file:`, `socket://`, `C:`). The agent takes such a
 * printer only from its own configuration, never from the server (docs/security.md).
 */
export const isLocalOnlyPrinter = (printer: string): boolean =>
  /^[a-z][a-z0-9+.-]*:/i.test(printer);

/** At most this many backup printers per route (docs/agent.md, "Backup printers"). */
export const maxBackupPrinters = 7;

export const printRouteSchema = z.object({
  name: routeNameSchema,
  /** The route's printer: the first it prints on. */
  printer: z.string().min(1).max(255),
  /**
   * Printers the route prints on, in this order, while the ones before cannot (out of paper,
   * offline…); each job on one printer only. Optional: left out, none (additive).
   */
  backup_printers: z
    .array(z.string().min(1).max(255))
    .max(maxBackupPrinters)
    .optional()
    .describe(
      'Backup printers, in order: a job goes to the first of printer, then these, that can print now; each job is handed to one printer only. Left out (in answers too): none.',
    ),
  enabled: z.boolean().default(true),
  options: printOptionsSchema.default({}),
  /** What the route's printer understands: template jobs are rendered for it. */
  profile: printerProfileSchema.optional(),
});
export type PrintRoute = z.infer<typeof printRouteSchema>;

/**
 * An agent as integrators see it (`GET /printing/agents`): its record and its routes. The
 * printers are the agent record's (`printerInfoSchema`), as the agent last reported them.
 */
export const agentListing = agentRecord.extend({ routes: z.array(printRouteSchema) });
export type AgentListing = z.infer<typeof agentListing>;

export const agentParams = z.object({ uuid: z.uuid() });
export const agentsQuery = pageQuery;

export const putRoutesBody = z.object({
  routes: z
    .array(printRouteSchema)
    .max(100)
    .superRefine((routes, ctx) => {
      const seen = new Set<string>();
      routes.forEach((route, index) => {
        if (seen.has(route.name)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: 'The :attribute field has a duplicate value.',
          });
        }
        seen.add(route.name);
        const backups = route.backup_printers ?? [];
        backups.forEach((backup, at) => {
          if (backup === route.printer || backups.indexOf(backup) !== at) {
            ctx.addIssue({
              code: 'custom',
              path: [index, 'backup_printers', at],
              message: 'The :attribute field names a printer the route has already.',
            });
          }
        });
      });
    }),
});
export type PutRoutesBody = z.infer<typeof putRoutesBody>;

export const agentConfig = z.object({
  company: z.object({ id: recordId, name: z.string() }),
  agent: agentRecord,
  routes: z.array(printRouteSchema),
  /** As in the heartbeat's answer: the count of changes to these routes. */
  routes_version: z.number().int().optional(),
  /** Routes the company's agents serve and routes with jobs waiting, to offer in settings. */
  route_names: z.array(z.string()),
  intervals: z.object({
    long_poll_wait_seconds: z.number().int(),
    heartbeat_seconds: z.number().int(),
    lease_seconds: z.number().int(),
  }),
});
export type AgentConfig = z.infer<typeof agentConfig>;

// ---- jobs -----------------------------------------------------------------------------

export const maxJobExpiresIn = 7 * 24 * 3600;

const base64Schema = z
  .string()
  .min(1)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'The :attribute field must be valid base64.');

/**
 * A job, in one of two forms: bytes (`content_type` and `content_base64`) or data for a
 * template (`template`, a name or an id, and `data`), rendered for the printer that claims it.
 */
export const createJobBody = z
  .object({
    route: routeNameSchema,
    title: z.string().max(255).optional(),
    content_type: contentTypeSchema.optional(),
    content_base64: base64Schema.optional(),
    template: z.union([z.string().min(1).max(64), idSchema]).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    copies: z.number().int().min(1).max(99).default(1),
    priority: z.number().int().min(0).max(9).default(5),
    options: printOptionsSchema.default({}),
    expires_in: z.number().int().min(1).max(maxJobExpiresIn).optional(),
  })
  .superRefine((body, ctx) => {
    const bytes = body.content_type !== undefined || body.content_base64 !== undefined;
    const fromTemplate = body.template !== undefined || body.data !== undefined;
    const exactlyOne = 'Send either content_type and content_base64, or template and data.';
    if (bytes === fromTemplate) {
      ctx.addIssue({
        code: 'custom',
        path: [bytes ? 'template' : 'content_type'],
        message: exactlyOne,
      });
      return;
    }
    const missing = bytes
      ? (['content_type', 'content_base64'] as const).filter((key) => body[key] === undefined)
      : (['template', 'data'] as const).filter((key) => body[key] === undefined);
    for (const key of missing) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'The :attribute field is required.' });
    }
  })
  .meta({
    // Exactly one of the two forms, whole: bytes (content_type and content_base64) or a
    // template and its data, never parts of both.
    oneOf: [
      {
        required: ['content_type', 'content_base64'],
        not: { anyOf: [{ required: ['template'] }, { required: ['data'] }] },
      },
      {
        required: ['template', 'data'],
        not: { anyOf: [{ required: ['content_type'] }, { required: ['content_base64'] }] },
      },
    ],
    examples: [
      {
        route: 'receipts',
        title: 'Receipt 1042',
        content_type: 'text/plain',
        content_base64: 'VGhhbmsgeW91IQ==',
        copies: 1,
      },
      {
        route: 'receipts',
        title: 'Receipt 1043',
        template: 'receipt',
        data: { order: { number: '1043' }, items: [{ name: 'Coffee', price: 2.5 }] },
      },
    ],
  });
export type CreateJobBody = z.infer<typeof createJobBody>;

export const jobErrorSchema = z.object({ message: z.string(), code: z.string().nullable() });

export const jobRecord = z
  .object({
    id: recordId,
    route: z.string(),
    title: z.string().nullable(),
    status: jobStatusSchema,
    content_type: jobContentTypeSchema,
    size: z.number().int(),
    sha256: z.string(),
    copies: z.number().int(),
    priority: z.number().int(),
    options: printOptionsSchema,
    attempts: z.number().int(),
    agent_id: z.string().nullable(),
    printer: z.string().nullable(),
    error: jobErrorSchema.nullable(),
    reprint_of: recordId.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    claimed_at: timestamp.nullable(),
    printed_at: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    lease_expires_at: timestamp.nullable(),
    /** Why a queued job is not printing now (docs/printing.md, "Why a job waits"). */
    wait_reason: waitReasonSchema.nullable(),
  })
  .meta({
    examples: [
      {
        id: 1,
        route: 'receipts',
        title: 'Receipt 1042',
        status: 'queued',
        content_type: 'text/plain',
        size: 10,
        sha256: 'f1b3d8ef1d1d5dc1b09e6bfc8d03c3b07f1f6b6b7c0f0d9b8c67d8e2bb4c3c1a',
        copies: 1,
        priority: 5,
        options: {},
        attempts: 0,
        agent_id: null,
        printer: null,
        error: null,
        reprint_of: null,
        created_at: '2026-11-22T10:00:00Z',
        updated_at: '2026-11-22T10:00:00Z',
        claimed_at: null,
        printed_at: null,
        expires_at: null,
        lease_expires_at: null,
        wait_reason: {
          code: 'printer_out_of_paper',
          message: 'printer EPSON_TM_T20 is out of paper: Paper out',
        },
      },
    ],
  });
export type JobRecord = z.infer<typeof jobRecord>;

/**
 * A job that was just queued (create, retry, reprint): `route_online` says whether an
 * online agent that is not paused serves its route, so an integrator can warn at once.
 */
export const queuedJobRecord = jobRecord.extend({ route_online: z.boolean() });
export type QueuedJobRecord = z.infer<typeof queuedJobRecord>;

export const jobEvent = z.object({
  from: jobStatusSchema.nullable(),
  to: jobStatusSchema,
  agent_id: z.string().nullable(),
  message: z.string().nullable(),
  at: timestamp,
});
export type JobEvent = z.infer<typeof jobEvent>;

export const jobDetail = jobRecord.extend({ events: z.array(jobEvent) });
export type JobDetail = z.infer<typeof jobDetail>;

export const jobDocument = z.object({
  content_type: contentTypeSchema,
  size: z.number().int(),
  sha256: z.string(),
  content_base64: z.string(),
});
export type JobDocument = z.infer<typeof jobDocument>;

/** A job as its agent claims it: always rendered, never template data. */
export const claimedJob = jobRecord.extend({
  content_type: contentTypeSchema,
  document: jobDocument,
});
export type ClaimedJob = z.infer<typeof claimedJob>;

export const nextJobBody = z.object({
  wait: z.number().int().min(0).max(30).default(0),
  /**
   * Claim only on these of the agent's enabled routes: those whose printers can print now.
   * Left out: all of them, as before. An agent none of whose routes can print does not ask.
   */
  routes: z
    .array(routeNameSchema)
    .min(1)
    .max(100)
    .optional()
    .describe(
      "Claim only on these of the agent's enabled routes (the ones whose printers can print now); left out, on all of them. Other names are ignored.",
    ),
});

/**
 * Why a held job goes back to the queue: what its printer said (`printer_out_of_paper`, …),
 * in a code and in words. The job is queued again under its id, not failed.
 */
export const releaseJobBody = z.object({
  code: z.string().min(1).max(64),
  message: z.string().min(1).max(2000),
});
export type ReleaseJobBody = z.infer<typeof releaseJobBody>;

export const confirmJobBody = z.object({
  /** The OS printer that printed it, as the agent resolved the route. */
  printer: z.string().max(255).optional(),
});

export const reportErrorBody = z.object({
  message: z.string().min(1).max(2000),
  code: z.string().max(64).optional(),
});
export type ReportErrorBody = z.infer<typeof reportErrorBody>;

export const jobParams = z.object({ job: idParam });

export const historyQuery = pageQuery.extend({
  status: jobStatusSchema.optional(),
  route: routeNameSchema.optional(),
  agent_id: z.string().max(64).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
});
export type HistoryQuery = z.infer<typeof historyQuery>;
