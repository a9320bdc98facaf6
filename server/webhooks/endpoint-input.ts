import { type EventList, webhookEventTypes } from '../../shared/webhooks.ts';
import type { WebhookPolicy } from '../config.ts';
import { invalidField } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import { type Resolve, refusalOf } from './address-policy.ts';
import type { WebhookOutbox } from './outbox.ts';
import type { SecretBox } from './secret-box.ts';

/** What the endpoint operations work with (built once by the webhook service). */
export interface EndpointDeps {
  storage: Storage;
  /** A change of endpoints tells every process's subscription cache (`endpointsChanged`). */
  outbox: WebhookOutbox;
  box: SecretBox;
  policy: WebhookPolicy;
  resolve: Resolve;
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
