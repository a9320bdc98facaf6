import { z } from 'zod';
import { permissionSchema } from './permissions.ts';

/** The web console's roles (server/console/roles.ts maps them to permissions). */
export const consoleRoles = ['owner', 'manager', 'staff'] as const;
export const consoleRoleSchema = z.enum(consoleRoles);
export type ConsoleRole = z.infer<typeof consoleRoleSchema>;

/** What a role may do beyond the API's permissions: the console's own pages. */
export const consoleAbilities = ['tokens.manage', 'users.manage'] as const;
export type ConsoleAbility = (typeof consoleAbilities)[number];

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(3)
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, 'The email must be a valid email address.');

export const signInBody = z.object({
  email: z.string().trim().toLowerCase().min(1).max(320),
  password: z.string().min(1).max(1024),
});

/** The password a person chooses: long enough, and no longer than scrypt should take. */
export const passwordSchema = z.string().min(10).max(1024);

export const setPasswordBody = z.object({
  code: z.string().min(10).max(200),
  password: passwordSchema,
});

export const changePasswordBody = z.object({
  current_password: z.string().min(1).max(1024),
  password: passwordSchema,
});

export const consoleUserRecord = z.object({
  id: z.number().int(),
  email: z.string(),
  role: consoleRoleSchema,
  /** False until the person has set a password through their link. */
  active: z.boolean(),
  created_at: z.string(),
});
export type ConsoleUserRecord = z.infer<typeof consoleUserRecord>;

/** Who is signed in, and what the console may show them. */
export const consoleSessionRecord = z.object({
  user: consoleUserRecord,
  company: z.object({ id: z.number().int(), name: z.string() }),
  permissions: z.array(permissionSchema),
  abilities: z.array(z.enum(consoleAbilities)),
  /** The permissions this person may hand to a token they make (never more than their own). */
  grantable: z.array(permissionSchema),
});
export type ConsoleSessionRecord = z.infer<typeof consoleSessionRecord>;

export const inviteUserBody = z.object({ email: emailSchema, role: consoleRoleSchema });

/** An invitation: the user, and the one-time link that sets their password. */
export const invitationRecord = z.object({
  user: consoleUserRecord,
  setup_url: z.string(),
  expires_at: z.string(),
});
export type InvitationRecord = z.infer<typeof invitationRecord>;

export const userParams = z.object({ user: z.coerce.number().int().positive() });
export const tokenParams = z.object({ token: z.coerce.number().int().positive() });

export const createConsoleTokenBody = z.object({
  name: z.string().trim().min(1).max(255),
  permissions: z.array(permissionSchema).min(1),
  expires_in_days: z.number().int().min(1).max(3650).optional(),
});

export const consoleTokenRecord = z.object({
  id: z.number().int(),
  name: z.string(),
  permissions: z.array(permissionSchema),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  agent_uuid: z.string().nullable(),
});
export type ConsoleTokenRecord = z.infer<typeof consoleTokenRecord>;

export const issuedConsoleToken = consoleTokenRecord.extend({
  /** Shown this once: only its hash is kept. */
  secret: z.string(),
});
export type IssuedConsoleToken = z.infer<typeof issuedConsoleToken>;

/** The overview page's figures. */
export const overviewRecord = z.object({
  agents: z.object({ online: z.number().int(), offline: z.number().int() }),
  printers_needing_attention: z.array(
    z.object({
      agent_id: z.string(),
      agent_name: z.string(),
      printer: z.string(),
      state: z.string(),
      reasons: z.array(z.string()),
    }),
  ),
  cannot_print: z
    .array(
      z.object({
        /** `route`: jobs wait on it; `printer`: it cannot print; `agent`: offline, serving routes. */
        kind: z.enum(['route', 'printer', 'agent']),
        /** A wait reason code (shared/wait-reason-words.ts); `agent_offline` for an agent. */
        code: z.string(),
        /** In words, with the printer's own message where it gave one. */
        message: z.string(),
        route: z.string().nullable(),
        agent_id: z.string().nullable(),
        agent_name: z.string().nullable(),
        printer: z.string().nullable(),
        /** Jobs waiting on the route (kind `route`), else null. */
        jobs_waiting: z.number().int().nullable(),
        /** Since when: the oldest waiting job's wait, the agent's last contact; null if unknown. */
        since: z.string().nullable(),
      }),
    )
    .describe('What cannot print now, most serious first (docs/console.md, "Overview").'),
  jobs_last_24h: z.object({
    queued: z.number().int(),
    printed: z.number().int(),
    failed: z.number().int(),
  }),
  failing_webhooks: z.array(
    z.object({ id: z.number().int(), url: z.string(), failing_since: z.string() }),
  ),
});
export type OverviewRecord = z.infer<typeof overviewRecord>;
/** One thing that cannot print now (docs/console.md, "Overview"). */
export type CannotPrintRecord = OverviewRecord['cannot_print'][number];

/** A name a person gives an agent in the console ("Front till"). */
export const renameAgentBody = z.object({ name: z.string().trim().min(1).max(100) });

/** What removing an agent did: its bound tokens revoked. */
export const removedAgentRecord = z.object({ tokens_revoked: z.number().int() });

export const changeRoleBody = z.object({ role: consoleRoleSchema });

/** A password reset: the one-time link that sets a new one (the old one no longer works). */
export const passwordResetRecord = z.object({ setup_url: z.string(), expires_at: z.string() });
export type PasswordResetRecord = z.infer<typeof passwordResetRecord>;
