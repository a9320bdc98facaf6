import type { Generated } from 'kysely';

/** The tables every domain shares: companies, their tokens, warehouses and categories. */
export interface CoreTables {
  companies: { id: Generated<number>; name: string; created_at: string };
  tokens: {
    id: Generated<number>;
    company_id: number;
    name: string;
    /** sha256 of the secret, hex: the secret itself is never stored. */
    hash: string;
    /** JSON array of permission names. */
    permissions: string;
    created_at: string;
    expires_at: string | null;
    revoked_at: string | null;
    /** Lower-case uuid of the one print agent this token may act as; null: any agent. */
    agent_uuid: string | null;
    /**
     * JSON array of the route names a bound token may add to its agent (from its enrolment
     * code, or `token create --routes`); null: none beyond those its agent serves.
     */
    routes: string | null;
  };
  warehouses: {
    id: Generated<number>;
    company_id: number;
    code: string;
    name: string;
    created_at: string;
  };
  categories: {
    id: Generated<number>;
    company_id: number;
    name: string;
    created_at: string;
  };
}
