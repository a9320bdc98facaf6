import { useState } from 'preact/hooks';
import { webhookEventWords } from '../../../shared/webhook-event-words.ts';
import type {
  DeliveryRecord,
  EndpointRecord,
  RotatedSecretRecord,
} from '../../../shared/webhooks.ts';
import { ColumnHeads } from '../../../ui/column-heads.tsx';
import { api, failureMessage, type Page } from '../api.ts';
import { Dialog } from '../components/dialog.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { usePageTitle } from '../components/page-title.ts';
import { SecretDialog } from '../components/secret-dialog.tsx';
import { useLiveVersion } from '../live.ts';
import { useLoad } from '../load.ts';
import { count, when } from '../words.ts';
import { WebhookForm } from './webhook-form.tsx';

/** A signing secret, shown once in a dialog with Copy. */
type Secret = { title: string; secret: string } | null;

/**
 * The company's webhook endpoints: add one, change its address and events, disable or
 * enable it, send a test event, rotate its secret, delete it; each with its latest deliveries.
 */
export function WebhooksPage() {
  usePageTitle('Webhooks');
  const live = useLiveVersion();
  const { data, error, reload } = useLoad(
    // Every endpoint at once (at most 20 a company): the list takes no paging.
    () => api<{ data: EndpointRecord[] }>('GET', '/webhooks'),
    [live],
  );
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<Secret>(null);
  return (
    <>
      <h1>Webhooks</h1>
      <p>Webhook endpoints are addresses of your systems that ShopDesk tells about changes.</p>
      <button type="button" onClick={() => setAdding(true)}>
        Add an endpoint
      </button>
      {error && <p role="alert">{error}</p>}
      {data && data.data.length === 0 && (
        <EmptyState title="No webhook endpoint yet.">
          <p>
            A webhook tells your other systems when a job prints or fails, or a printer needs
            attention. "Add an endpoint" takes the address of your system that should hear of it.
          </p>
        </EmptyState>
      )}
      {data?.data.map((endpoint) => (
        <EndpointView
          key={endpoint.id}
          endpoint={endpoint}
          live={live}
          onChanged={reload}
          showSecret={setSecret}
        />
      ))}
      <Dialog open={adding} title="Add an endpoint" onClose={() => setAdding(false)}>
        <WebhookForm
          onSaved={(saved) => {
            setAdding(false);
            reload();
            if (saved.secret)
              setSecret({ title: `Signing secret of ${saved.url}`, secret: saved.secret });
          }}
        />
      </Dialog>
      <SecretDialog
        title={secret?.title ?? ''}
        label="Signing secret"
        value={secret?.secret ?? null}
        onClose={() => setSecret(null)}
      >
        <p>
          Your system checks each delivery's signature with this secret. Copy it now: it is not
          shown again.
        </p>
      </SecretDialog>
    </>
  );
}

function eventsInWords(events: string[]): string {
  if (events.includes('*')) return 'all events';
  return events
    .map((type) => webhookEventWords[type as keyof typeof webhookEventWords] ?? type)
    .join(', ');
}

/** Runs one action of an endpoint and says its outcome in words. */
type RunAction = (what: () => Promise<string>) => Promise<void>;

function EndpointView(props: {
  endpoint: EndpointRecord;
  live: string;
  onChanged: () => void;
  showSecret: (secret: Secret) => void;
}) {
  const { endpoint, live, onChanged } = props;
  const [message, setMessage] = useState('');
  const [editing, setEditing] = useState(false);
  const { data, reload } = useLoad(
    () => api<Page<DeliveryRecord>>('GET', `/webhooks/${endpoint.id}/deliveries?per_page=10`),
    [endpoint.id, live],
  );
  const run: RunAction = async (what) => {
    setMessage('');
    try {
      setMessage(await what());
      reload();
      onChanged();
    } catch (failure) {
      setMessage(failureMessage(failure));
    }
  };
  return (
    <section class="card" aria-labelledby={`endpoint-${endpoint.id}`} data-endpoint={endpoint.url}>
      <h2 id={`endpoint-${endpoint.id}`}>{endpoint.url}</h2>
      <p>
        {endpoint.description && `${endpoint.description} · `}
        <span class={endpoint.enabled ? 'badge ok' : 'badge off'}>
          {endpoint.enabled ? 'Enabled' : 'Disabled'}
        </span>
        {!endpoint.enabled && endpoint.disabled_reason && ` (${endpoint.disabled_reason})`}
        {endpoint.failing_since && `, failing since ${when(endpoint.failing_since)}`} · sends{' '}
        {eventsInWords(endpoint.events)}
      </p>
      <EndpointActions
        endpoint={endpoint}
        run={run}
        onEdit={() => setEditing(true)}
        showSecret={props.showSecret}
      />
      <p role="status">{message}</p>
      <Dialog open={editing} title={`Edit ${endpoint.url}`} onClose={() => setEditing(false)}>
        <WebhookForm
          endpoint={endpoint}
          onSaved={() => {
            setEditing(false);
            setMessage('Saved.');
            onChanged();
          }}
        />
      </Dialog>
      {data && data.data.length === 0 ? (
        <p>No delivery yet: "Send test event" makes one.</p>
      ) : (
        <DeliveryTable endpoint={endpoint} deliveries={data?.data ?? []} run={run} />
      )}
    </section>
  );
}

/** Edit, send a test event, disable or enable, rotate the secret, delete (confirmed). */
function EndpointActions(props: {
  endpoint: EndpointRecord;
  run: RunAction;
  onEdit: () => void;
  showSecret: (secret: Secret) => void;
}) {
  const { endpoint, run } = props;
  const rotate = () =>
    run(async () => {
      const answer = await api<{ data: RotatedSecretRecord }>(
        'POST',
        `/webhooks/${endpoint.id}/rotate-secret`,
      );
      props.showSecret({
        title: `New signing secret of ${endpoint.url}`,
        secret: answer.data.secret,
      });
      return 'A new signing secret is made; the old one keeps signing beside it for 24 hours.';
    });
  const toggle = () =>
    run(async () => {
      await api('PATCH', `/webhooks/${endpoint.id}`, { enabled: !endpoint.enabled });
      return endpoint.enabled
        ? 'Disabled: nothing is sent to it until it is enabled again.'
        : 'Enabled: events are sent to it again.';
    });
  const test = () =>
    run(async () => {
      await api('POST', `/webhooks/${endpoint.id}/test`);
      return 'A test event is on its way; it shows in the deliveries below.';
    });
  const remove = () => {
    if (
      !confirm(
        `Delete the endpoint ${endpoint.url}? It hears of nothing more, and its deliveries are deleted.`,
      )
    )
      return;
    void run(async () => {
      await api('DELETE', `/webhooks/${endpoint.id}`);
      return 'Deleted.';
    });
  };
  const label = endpoint.description ?? endpoint.url;
  return (
    <div class="actions">
      <button type="button" class="secondary" onClick={props.onEdit} aria-label={`Edit ${label}`}>
        Edit
      </button>
      <button
        type="button"
        class="secondary"
        onClick={test}
        disabled={!endpoint.enabled}
        aria-label={`Send test event to ${label}`}
      >
        Send test event
      </button>
      <button
        type="button"
        class="secondary"
        onClick={toggle}
        aria-label={`${endpoint.enabled ? 'Disable' : 'Enable'} ${label}`}
      >
        {endpoint.enabled ? 'Disable' : 'Enable'}
      </button>
      <button
        type="button"
        class="secondary"
        onClick={rotate}
        aria-label={`Rotate secret of ${label}`}
      >
        Rotate secret
      </button>
      <button type="button" class="danger" onClick={remove} aria-label={`Delete ${label}`}>
        Delete
      </button>
    </div>
  );
}

/** The endpoint's latest deliveries, each with Redeliver. */
function DeliveryTable(props: {
  endpoint: EndpointRecord;
  deliveries: DeliveryRecord[];
  run: RunAction;
}) {
  const { endpoint, run } = props;
  const redeliver = (delivery: DeliveryRecord) =>
    run(async () => {
      await api('POST', `/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`);
      return `Delivery ${delivery.id} will be sent again.`;
    });
  return (
    <table class="list">
      <caption>Latest deliveries</caption>
      <ColumnHeads names={['Event', 'Status', 'Response', 'Created']} actions />
      <tbody>
        {props.deliveries.map((delivery) => (
          <tr key={delivery.id}>
            <td>{delivery.type}</td>
            <td>
              {delivery.status} ({count(delivery.attempts, 'attempt')})
            </td>
            <td>{delivery.last_response_status ?? delivery.last_error ?? '—'}</td>
            <td>{when(delivery.created_at)}</td>
            <td>
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
  );
}
