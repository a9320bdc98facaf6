import { useState } from 'preact/hooks';
import { webhookEventWords } from '../../../shared/webhook-event-words.ts';
import type { CreatedEndpointRecord, EndpointRecord } from '../../../shared/webhooks.ts';
import { ApiError, api, failureMessage } from '../api.ts';

const eventTypes = Object.keys(webhookEventWords) as Array<keyof typeof webhookEventWords>;

/**
 * Why an address was refused, in words: the server's own (it names the rule: https only, a
 * private or loopback address, a host that does not resolve), and what to do about it.
 */
export function refusalInWords(failure: unknown): string {
  if (failure instanceof ApiError && failure.errors?.['url']) {
    return `This address cannot receive webhooks. ${failure.errors['url'].join(' ')} Use an https:// address of your system that the internet can reach (IT can allow addresses inside your network when the server is started).`;
  }
  return failureMessage(failure);
}

/**
 * The address and the events of an endpoint, to add one (`endpoint` undefined) or change it.
 * Saves through the API (`POST /webhooks`, `PATCH /webhooks/{id}`); `onSaved` gets the answer
 * (on creation it holds the signing secret, shown once).
 */
export function WebhookForm(props: {
  endpoint?: EndpointRecord;
  onSaved: (saved: EndpointRecord & { secret?: string }) => void;
}) {
  const { endpoint } = props;
  const [all, setAll] = useState(endpoint ? endpoint.events.includes('*') : false);
  const [error, setError] = useState('');
  const idBase = endpoint ? `webhook-${endpoint.id}` : 'webhook-new';
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const events = all ? ['*'] : form.getAll('events').map(String);
    if (events.length === 0) {
      setError('Choose the events to send: all of them, or some below.');
      return;
    }
    const body = {
      url: String(form.get('url')).trim(),
      description: String(form.get('description')).trim() || null,
      events,
    };
    setError('');
    try {
      const answer = endpoint
        ? await api<{ data: EndpointRecord }>('PATCH', `/webhooks/${endpoint.id}`, body)
        : await api<{ data: CreatedEndpointRecord }>('POST', '/webhooks', body);
      props.onSaved(answer.data);
    } catch (failure) {
      setError(refusalInWords(failure));
    }
  };
  return (
    <form onSubmit={submit} aria-label={endpoint ? `Change ${endpoint.url}` : 'Add an endpoint'}>
      <label for={`${idBase}-url`}>Address (URL)</label>
      <input
        id={`${idBase}-url`}
        name="url"
        type="url"
        required
        maxLength={2000}
        placeholder="https://shop.example.com/shopdesk-events"
        defaultValue={endpoint?.url ?? ''}
        data-autofocus=""
      />
      <label for={`${idBase}-description`}>Description (optional)</label>
      <input
        id={`${idBase}-description`}
        name="description"
        maxLength={255}
        defaultValue={endpoint?.description ?? ''}
      />
      <fieldset>
        <legend>Events to send</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={all}
            onChange={(event) => setAll(event.currentTarget.checked)}
          />{' '}
          All events, including those added later
        </label>
        {!all &&
          eventTypes.map((type) => (
            <label key={type} class="check" title={type}>
              <input
                type="checkbox"
                name="events"
                value={type}
                defaultChecked={endpoint?.events.includes(type) ?? false}
              />{' '}
              {webhookEventWords[type]}
            </label>
          ))}
      </fieldset>
      {error && <p role="alert">{error}</p>}
      <div class="actions">
        <button type="submit">{endpoint ? 'Save changes' : 'Add the endpoint'}</button>
      </div>
    </form>
  );
}
