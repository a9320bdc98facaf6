import type { Generated } from 'kysely';
import type { JobContentType, JobStatus } from '../../../shared/printing.ts';

/** The print queue's tables (migration 007_printing). */
export interface PrintingTables {
  print_agents: {
    id: Generated<number>;
    company_id: number;
    /** The UUID the agent generated once; unique across companies. */
    uuid: string;
    name: string;
    hostname: string;
    platform: string;
    version: string;
    /** JSON array of `{name, is_default}`. */
    printers: string;
    /** 0 or 1. */
    paused: number;
    last_seen_at: string | null;
    /**
     * Until when it counts as present: written with `last_seen_at`, one online interval later
     * (server/printing/agents/presence.ts). Added by 038_present_until.
     */
    present_until: string | null;
    /**
     * When the agent last came online as the webhook events announced it (`agent.online`);
     * null once the sweep found it silent (`agent.offline`). Added by 009_webhooks.
     */
    online_since: string | null;
    /** Bumped at every change of the agent's routes (024_routes_version). */
    routes_version: Generated<number>;
    /** 1 when a person named it in the console: its registrations keep that name (035). */
    named_in_console: Generated<number>;
    /** When a person removed it in the console; null while listed (035). */
    removed_at: Generated<string | null>;
    created_at: string;
    updated_at: string;
  };
  /** A printer that cannot print, while it lasts (031_printer_attention). */
  printer_attention: {
    company_id: number;
    agent_id: number;
    printer: string;
    code: string;
    message: string;
    since: string;
    notified_at: string | null;
  };
  print_routes: {
    id: Generated<number>;
    company_id: number;
    agent_id: number;
    position: number;
    name: string;
    printer: string;
    /** 0 or 1 (SQLite binds no booleans). */
    enabled: number;
    /** JSON object of print options. */
    options: string;
    /** JSON text of the printer profile (020_templates), or null: print what is sent. */
    profile: string | null;
    /** JSON array of backup printer names, in order (030_backup_printers), or null: none. */
    backup_printers: string | null;
  };
  /** Content, stored once per company and sha256: reprints and repeats reuse it. */
  print_documents: {
    id: Generated<number>;
    company_id: number;
    sha256: string;
    size: number;
    content: Buffer;
    created_at: string;
  };
  print_jobs: {
    id: Generated<number>;
    company_id: number;
    document_id: number;
    route: string;
    title: string | null;
    status: JobStatus;
    content_type: JobContentType;
    size: number;
    sha256: string;
    copies: number;
    priority: number;
    /** JSON object of print options. */
    options: string;
    attempts: number;
    /** UUID of the agent that holds (or last held) the job. */
    agent_id: string | null;
    printer: string | null;
    error_message: string | null;
    error_code: string | null;
    reprint_of: number | null;
    created_at: string;
    updated_at: string;
    claimed_at: string | null;
    printed_at: string | null;
    expires_at: string | null;
    lease_expires_at: string | null;
    /** When the sweep sent `print_job.held` for this wait; null until then (migration 028). */
    held_noticed_at: Generated<string | null>;
  };
  print_job_events: {
    id: Generated<number>;
    company_id: number;
    job_id: number;
    from_status: JobStatus | null;
    to_status: JobStatus;
    agent_id: string | null;
    message: string | null;
    at: string;
  };
}
