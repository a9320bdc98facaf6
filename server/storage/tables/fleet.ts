import type { Generated } from 'kysely';

/** Enrolment codes, agent builds and update checks (migration 019_agent_fleet). */
export interface FleetTables {
  print_enrollments: {
    id: Generated<number>;
    company_id: number;
    /** sha256 (hex) of the code as normalised (upper case, no dash): never the code. */
    code_hash: string;
    name: string | null;
    /** JSON array of the route names the enrolled agents serve. */
    routes: string;
    uses: number;
    used: number;
    expires_at: string;
    revoked_at: string | null;
    created_at: string;
    /** The agent a re-enrolment code is for (migration 025); null: it enrols new agents. */
    agent_uuid: string | null;
  };
  print_enrollment_agents: {
    id: Generated<number>;
    enrollment_id: number;
    company_id: number;
    agent_uuid: string;
    token_id: number;
    enrolled_at: string;
  };
  agent_releases: {
    id: Generated<number>;
    version: string;
    /** `win`, `mac` or `linux`. */
    platform: string;
    channel: string;
    file_name: string;
    /** bigint: PostgreSQL's driver returns it as a string. */
    size: number | string;
    /** base64, as electron-builder writes it in latest.yml. */
    sha512: string;
    /** 0 to 100: the share of agents offered this build. */
    rollout: number;
    complete: number;
    created_at: string;
  };
  agent_release_chunks: { release_id: number; seq: number; data: Buffer };
  agent_update_checks: {
    company_id: number;
    agent_uuid: string;
    channel: string;
    checked_at: string;
  };
}
