import { z } from 'zod';
import { recordId, timestamp } from './http.ts';
import { routeNameSchema } from './printing.ts';

/**
 * Enrolment codes (docs/it-guide.md, "Enrol a PC"): IT makes a short code, an agent trades
 * it once for a token of its own, bound to that agent.
 */

/** No 0/O, 1/I/L or U: a code is read off a screen and typed on another PC. */
export const enrollmentAlphabet = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
export const enrollmentCodeLength = 8;

/** `k7qf m2xd`, `K7QF-M2XD` → `K7QFM2XD`; null when it cannot be a code at all. */
export function normalizeEnrollmentCode(text: string): string | null {
  const compact = text.toUpperCase().replace(/[\s-]/g, '');
  if (compact.length !== enrollmentCodeLength) return null;
  return [...compact].every((char) => enrollmentAlphabet.includes(char)) ? compact : null;
}

/** `K7QFM2XD` → `K7QF-M2XD`, as shown and printed. */
export const formatEnrollmentCode = (compact: string): string =>
  `${compact.slice(0, 4)}-${compact.slice(4)}`;

/** How long a code lasts unless told: a working day to walk from PC to PC. */
export const defaultEnrollmentSeconds = 24 * 3600;
export const maxEnrollmentSeconds = 30 * 24 * 3600;

export const createEnrollmentBody = z.object({
  name: z.string().min(1).max(255).optional(),
  /** The routes the agents enrolled with it serve (on the computer's default printer). */
  routes: z.array(routeNameSchema).max(100).default([]),
  expires_in: z.number().int().min(60).max(maxEnrollmentSeconds).default(defaultEnrollmentSeconds),
  uses: z.number().int().min(1).max(10_000).default(1),
  /**
   * Re-enrol this agent (its uuid, registered in the company): the code enrols it alone,
   * once, and revokes its old tokens when used. Without it, a code enrols new agents only.
   */
  agent_id: z.uuid().optional(),
});
export type CreateEnrollmentBody = z.infer<typeof createEnrollmentBody>;

export const enrollmentStates = ['active', 'used_up', 'expired', 'revoked'] as const;

export const enrollmentRecord = z.object({
  id: recordId,
  name: z.string().nullable(),
  routes: z.array(z.string()),
  uses: z.number().int(),
  used: z.number().int(),
  state: z.enum(enrollmentStates),
  expires_at: timestamp,
  revoked_at: timestamp.nullable(),
  created_at: timestamp,
  /** The agent this code re-enrols; null: it enrols new agents only. */
  agent_id: z.string().nullable(),
  /** The agents it enrolled, oldest first. */
  agents: z.array(z.object({ id: z.string(), token_id: recordId, enrolled_at: timestamp })),
});
export type EnrollmentRecord = z.infer<typeof enrollmentRecord>;

/** The answer to a create: the record and, this once, the code itself. */
export const createdEnrollment = enrollmentRecord.extend({ code: z.string() });
export type CreatedEnrollment = z.infer<typeof createdEnrollment>;

export const enrollmentParams = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

/** What an agent sends to trade a code for its token. */
export const redeemEnrollmentBody = z.object({
  code: z.string().min(1).max(32),
  uuid: z.uuid(),
  hostname: z.string().min(1).max(255).optional(),
  /**
   * The routes the agent will serve (its `--route` names): checked against what the code
   * grants before the code is spent, so a mismatch is refused and leaves the code usable.
   */
  routes: z.array(routeNameSchema).max(100).optional(),
});
export type RedeemEnrollmentBody = z.infer<typeof redeemEnrollmentBody>;

export const redeemedEnrollment = z.object({
  /** Shown this once: the agent keeps it in its state directory (or the tray's safeStorage). */
  token: z.string(),
  token_id: recordId,
  agent_id: z.string(),
  company: z.object({ id: recordId, name: z.string() }),
  routes: z.array(z.string()),
});
export type RedeemedEnrollment = z.infer<typeof redeemedEnrollment>;
