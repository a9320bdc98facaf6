import type { Generated } from 'kysely';

/** Idempotency keys and the answers they replay (migration 008_idempotency). */
export interface IdempotencyTables {
  idempotency_keys: {
    id: Generated<number>;
    company_id: number;
    /** Method and route template, e.g. `POST /printing/jobs/{job}/retry`. */
    operation: string;
    key: string;
    /** sha256 (hex) of the request's canonical payload. */
    fingerprint: string;
    status: number;
    /** The answer's body, byte for byte; null when it had none. */
    body: Buffer | null;
    /** JSON object of the headers replayed with the body. */
    headers: string;
    created_at: string;
    expires_at: string;
  };
}
