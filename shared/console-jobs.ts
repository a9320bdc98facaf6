import { z } from 'zod';
import { pageQuery } from './http.ts';
import { jobDetail, jobRecord, jobStatusSchema, routeNameSchema } from './printing.ts';

/**
 * The console's jobs page (`GET /console/jobs`): the API's history filters, and `search`
 * over the job's title (where integrators put the order or receipt reference: "Order
 * A-1043") and its number ("1043", "#1043"). No total: the page asks for one row more than
 * it shows to know whether there are older ones, so a refresh never counts every job.
 */
export const consoleJobsQuery = pageQuery.extend({
  search: z.string().trim().max(255).optional(),
  status: jobStatusSchema.optional(),
  route: routeNameSchema.optional(),
  printer: z.string().min(1).max(255).optional(),
  agent_id: z.string().max(64).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
});
export type ConsoleJobsQuery = z.infer<typeof consoleJobsQuery>;

/** Where a job is, in names people chose: the agent's name, the printer it went to. */
const whereFields = {
  /** The name of the agent that holds or held the job, or null. */
  agent_name: z.string().nullable(),
  /**
   * The printer that printed it, else the printer its route goes to on the agent that held
   * it (a failed job: where it failed), else null.
   */
  printer_name: z.string().nullable(),
};

export const consoleJobRecord = jobRecord.extend(whereFields);
export type ConsoleJobRecord = z.infer<typeof consoleJobRecord>;

export const consoleJobDetail = jobDetail.extend(whereFields);
export type ConsoleJobDetail = z.infer<typeof consoleJobDetail>;

export const consoleJobPage = z.object({
  data: z.array(consoleJobRecord),
  meta: z.object({
    current_page: z.number().int(),
    per_page: z.number().int(),
    /** Whether older jobs match too (a next page). */
    has_more: z.boolean(),
  }),
});
export type ConsoleJobPage = z.infer<typeof consoleJobPage>;

/** The values the filters offer: the company's routes and printers as its agents have them. */
export const jobChoicesRecord = z.object({
  routes: z.array(z.string()),
  printers: z.array(z.string()),
});
export type JobChoicesRecord = z.infer<typeof jobChoicesRecord>;

/** "Retry all failed on this route/printer": at least one of the two. */
export const retryFailedBody = z
  .object({
    route: routeNameSchema.optional(),
    printer: z.string().min(1).max(255).optional(),
  })
  .refine((body) => body.route !== undefined || body.printer !== undefined, {
    message: 'Name a route or a printer (or both): the failed jobs there are retried.',
    path: ['route'],
  });
export type RetryFailedBody = z.infer<typeof retryFailedBody>;

export const retryFailedRecord = z.object({
  /** Jobs queued again. */
  retried: z.number().int(),
  /** Failed jobs there that a retry cannot help (their error says why), left failed. */
  left: z.number().int(),
  /** More failed jobs than one request retries: ask again. */
  more: z.boolean(),
});
export type RetryFailedRecord = z.infer<typeof retryFailedRecord>;
