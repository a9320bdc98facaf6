import type { Generated } from 'kysely';

/** The web console's users and their sessions (migration 021_console_users). */
export interface ConsoleTables {
  console_users: {
    id: Generated<number>;
    company_id: number;
    /** Lower case. */
    email: string;
    /** `owner`, `manager` or `staff` (server/console/roles.ts). */
    role: string;
    /** `scrypt$N$r$p$salt$hash` (server/console/password-hash.ts); null until set. */
    password_hash: string | null;
    /** sha256 (hex) of the one-time code that sets the password; null once used. */
    setup_hash: string | null;
    setup_expires_at: string | null;
    created_at: string;
  };
  console_sessions: {
    id: Generated<number>;
    user_id: number;
    company_id: number;
    /** sha256 (hex) of the cookie's value. */
    hash: string;
    created_at: string;
    expires_at: string;
  };
}
