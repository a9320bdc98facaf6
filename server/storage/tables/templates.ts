import type { Generated } from 'kysely';
import type { TemplateKind } from '../../../shared/templates.ts';

/** Document templates (migrations 020_templates, 029_template_assets). */
export interface TemplateTables {
  print_templates: {
    id: Generated<number>;
    company_id: number;
    name: string;
    kind: TemplateKind;
    /** The latest version's number. */
    version: number;
    created_at: string;
    updated_at: string;
    /** Set when deleted: the name is free again, the versions stay for the jobs made from them. */
    deleted_at: string | null;
  };
  print_template_versions: {
    id: Generated<number>;
    company_id: number;
    template_id: number;
    version: number;
    name: string;
    kind: TemplateKind;
    source: string;
    /** JSON text, or null. */
    data_schema: string | null;
    /** JSON text, or null. */
    sample_data: string | null;
    /** JSON text of the images by name (base64), or null for none. */
    assets: string | null;
    created_at: string;
  };
  /** A job made from a template: its version and data; what it was rendered for. */
  print_template_jobs: {
    job_id: number;
    company_id: number;
    version_id: number;
    data_document_id: number;
    /** JSON text of the profile it was rendered for; null until claimed. */
    rendered_profile: string | null;
  };
}
