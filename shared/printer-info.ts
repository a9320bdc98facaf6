import { z } from 'zod';
import { timestamp } from './http.ts';
import { printerCapabilitiesSchema } from './printer-capabilities.ts';

/**
 * A printer as an agent reports it and as agent records show it (docs/printing.md, "Printer
 * states"); `shared/printing.ts` passes these on. Apart from the queue's contracts so that the
 * rules over printers (`wait-reasons.ts`) import no more than them.
 */

/** What a printer is doing, as its agent last saw it (docs/printing.md, "Printer states"). */
export const printerStates = ['idle', 'printing', 'stopped', 'offline', 'unknown'] as const;
export const printerStateSchema = z.enum(printerStates);
export type PrinterState = z.infer<typeof printerStateSchema>;

/**
 * One IPP printer-state-reasons keyword (RFC 8011 §5.4.12) as the printer gave it, its
 * severity suffix (`-report`, `-warning`, `-error`) kept: `media-empty-error`,
 * `offline-report`, `paused`. Keyword syntax of RFC 8011 §5.1.4.
 */
export const printerStateReasonSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9._-]{0,254}$/,
    'The :attribute field must be an IPP keyword: a-z first, then a-z, 0-9, ".", "_" or "-".',
  );

/**
 * A printer as its agent reports it. The state fields are optional on input, so that an
 * agent older than them still registers, and always present on output.
 */
export const printerInfoSchema = z.object({
  name: z.string().min(1).max(255),
  is_default: z.boolean().default(false),
  state: printerStateSchema.default('unknown'),
  reasons: z.array(printerStateReasonSchema).max(32).default([]),
  /** CUPS's printer-is-accepting-jobs; null where the system has no such notion (Windows). */
  accepting_jobs: z.boolean().nullable().default(null),
  /** The system's own words about the state (IPP printer-state-message), e.g. "Paper out". */
  message: z.string().max(1023).nullable().default(null),
  /** What it can do (shared/printer-capabilities.ts); absent when the agent could not tell. */
  capabilities: printerCapabilitiesSchema.optional(),
});
export type PrinterInfo = z.infer<typeof printerInfoSchema>;

/**
 * A printer in an agent record: as its agent reported it while the agent is online; `unknown`
 * once the agent is offline (nobody can tell what it does now), with what it last reported
 * and when in `last_known` (docs/printing.md, "Printer states").
 */
export const agentPrinterSchema = printerInfoSchema.extend({
  last_known: z
    .object({
      state: printerStateSchema,
      reasons: z.array(z.string()),
      accepting_jobs: z.boolean().nullable(),
      message: z.string().nullable(),
      at: timestamp.nullable(),
    })
    .optional()
    .describe(
      'Only while the agent is offline: the state its agent last reported, and when (its last_seen_at).',
    ),
});
export type AgentPrinter = z.infer<typeof agentPrinterSchema>;
