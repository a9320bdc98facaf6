import { useState } from 'preact/hooks';
import { ApiError, api, type Page } from '../api.ts';
import { usePageTitle } from '../components/page-title.ts';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { when } from '../words.ts';

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
      {data && data.data.length === 0 && <p>No webhook endpoint yet.</p>}
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
      <button type="button" onClick={rotate}>
        Rotate secret
      </button>
      <p role="status">{message}</p>
      <table>
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
              <td>{delivery.type}</td>
              <td>
                {delivery.status} ({delivery.attempts} attempts)
              </td>
              <td>{delivery.last_response_status ?? delivery.last_error ?? '—'}</td>
              <td>{when(delivery.created_at)}</td>
              <td>
                <button
                  type="button"
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
