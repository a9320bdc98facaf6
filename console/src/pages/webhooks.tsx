import { useState } from 'preact/hooks';
import { ApiError, api, type Page } from '../api.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { count, when } from '../words.ts';

interface Endpoint {
  id: number;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  failing_since: string | null;
}

interface Delivery {
  id: number;
  type: string;
  status: string;
  attempts: number;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
}

export function WebhooksPage() {
  usePageTitle('Webhooks');
  const live = useLiveVersion();
  const { data, error } = useLoad(
    // Every endpoint at once (at most 20 a company): the list takes no paging.
    () => api<{ data: Endpoint[] }>('GET', '/webhooks'),
    [live],
  );
  return (
    <>
      <h1>Webhooks</h1>
      <p>Webhook endpoints are addresses of your systems that ShopDesk tells about changes.</p>
      {error && <p role="alert">{error}</p>}
      {data && data.data.length === 0 && (
        <EmptyState title="No webhook endpoint yet.">
          <p>
            A webhook tells your other systems when a job prints or fails, or a printer needs
            attention. Add an endpoint with the API (docs/webhooks.md) and it shows here.
          </p>
        </EmptyState>
      )}
      {data?.data.map((endpoint) => (
        <EndpointView key={endpoint.id} endpoint={endpoint} live={live} />
      ))}
    </>
  );
}

function EndpointView({ endpoint, live }: { endpoint: Endpoint; live: string }) {
  const [message, setMessage] = useState('');
  const { data, reload } = useLoad(
    () => api<Page<Delivery>>('GET', `/webhooks/${endpoint.id}/deliveries?per_page=10`),
    [endpoint.id, live],
  );
  const run = async (what: () => Promise<string>) => {
    setMessage('');
    try {
      setMessage(await what());
      reload();
    } catch (failure) {
      setMessage(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  const rotate = () =>
    run(async () => {
      const answer = await api<{ data: { secret: string } }>(
        'POST',
        `/webhooks/${endpoint.id}/rotate-secret`,
      );
      return `New signing secret (shown once): ${answer.data.secret}`;
    });
  const redeliver = (delivery: Delivery) =>
    run(async () => {
      await api('POST', `/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`);
      return `Delivery ${delivery.id} will be sent again.`;
    });
  return (
    <section aria-labelledby={`endpoint-${endpoint.id}`}>
      <h2 id={`endpoint-${endpoint.id}`}>{endpoint.url}</h2>
      <p>
        {endpoint.enabled ? 'Enabled' : 'Disabled'}
        {endpoint.failing_since && `, failing since ${when(endpoint.failing_since)}`} · events:{' '}
        {endpoint.events.join(', ')}
      </p>
      <button type="button" class="secondary" onClick={rotate}>
        Rotate secret
      </button>
      <p role="status">{message}</p>
      <table class="list">
        <caption>Latest deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Response</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data?.data.map((delivery) => (
            <tr key={delivery.id}>
              <td data-label="Event">{delivery.type}</td>
              <td data-label="Status">
                {delivery.status} ({count(delivery.attempts, 'attempt')})
              </td>
              <td data-label="Response">
                {delivery.last_response_status ?? delivery.last_error ?? '—'}
              </td>
              <td data-label="Created">{when(delivery.created_at)}</td>
              <td data-label="Actions">
                <button
                  type="button"
                  class="secondary"
                  onClick={() => redeliver(delivery)}
                  aria-label={`Redeliver ${delivery.id}`}
                >
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
