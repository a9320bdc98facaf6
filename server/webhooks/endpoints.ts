import type { Selectable } from 'kysely';
import { type EndpointRecord, type EventList, webhookEventTypes } from '../../shared/webhooks.ts';
import type { WebhookPolicy } from '../config.ts';
import { invalidField, NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import type { WebhookTables } from '../storage/tables/webhooks.ts';
import { type Resolve, refusalOf } from './address-policy.ts';
import type { SecretBox } from './secret-box.ts';

export type EndpointRow = Selectable<WebhookTables['webhook_endpoints']>;

/** What the endpoint operations work with (built once by the webhook service). */
export interface EndpointDeps {
  storage: Storage;
  box: SecretBox;
  policy: WebhookPolicy;
  resolve: Resolve;
}

export function toEndpointRecord(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: Boolean(row.enabled),
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    failing_since: row.failing_since,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getEndpointRow(
  db: Db,
  companyId: number,
  id: number,
  options: { lock?: boolean } = {},
): Promise<EndpointRow> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new NotFound('Webhook');
  return row;
}

export async function listEndpoints(db: Db, companyId: number): Promise<EndpointRecord[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  return rows.map(toEndpointRecord);
}

/**
 * The URL as stored: checked against the server's policy (scheme, and every address its
 * host resolves to), without its fragment, which is never sent. Refused on the `url` field.
 */
export async function acceptableUrl(deps: EndpointDeps, text: string): Promise<string> {
  const url = new URL(text);
  const refusal = await refusalOf(url, deps.policy, deps.resolve);
  if (refusal) throw invalidField('url', refusal);
  url.hash = '';
  return url.toString();
}

/** `["*"]` stays as is; a list is stored in the registry's order, so equal lists compare equal. */
export function storedEvents(events: EventList): string {
  const order = (type: string) => webhookEventTypes.indexOf(type as never);
  return JSON.stringify([...events].sort((a, b) => order(a) - order(b)));
}
