import type { Generated } from 'kysely';

/** Printers that poll ShopDesk themselves (migrations 034_cloudprnt_printers, 035, 036). */
export interface CloudPrntTables {
  cloudprnt_printers: {
    id: Generated<number>;
    company_id: number;
    /** The print agent that stands for the printer in the queue. */
    agent_uuid: string;
    route: string;
    username: string;
    /** sha256 (hex) of the password: never the password. */
    password_hash: string;
    /** JSON: what the printer's client actions answered (server/cloudprnt/protocol.ts). */
    capabilities: Generated<string>;
    /** The claim the printer holds between its GET and its DELETE; null when none. */
    job_token: string | null;
    /**
     * How many claims the printer has made; the held claim, if any, is the last (Star's
     * `jobToken` names a claim by its number: migration 036).
     */
    claims: Generated<number>;
    created_at: string;
    revoked_at: string | null;
    /** `star` (CloudPRNT) or `epson` (Server Direct Print): migration 035. */
    kind: Generated<string>;
    /** An Epson printer's HTTP Digest key, MD5(user:realm:password); null for Star's. */
    digest_ha1: string | null;
    /** When an Epson printer's status notification was last recorded (migration 037). */
    status_at: string | null;
  };
}
