import { z } from 'zod';
import { dataOf, pageOf } from '../../shared/http.ts';
import {
  createdEndpointRecord,
  createEndpointBody,
  deliveryListQuery,
  deliveryParams,
  deliveryRecord,
  endpointParams,
  endpointRecord,
  rotatedSecretRecord,
  updateEndpointBody,
} from '../../shared/webhooks.ts';
import { pageReply } from '../http/pagination.ts';
import { type AnyRoute, created, defineRoute, noContent, ok } from '../http/route.ts';
import { createEndpoint } from './create-endpoint.ts';
import { deleteEndpoint } from './delete-endpoint.ts';
import { listDeliveries } from './list-deliveries.ts';
import { listEndpoints } from './list-endpoints.ts';
import { readEndpointRow } from './read-endpoint.ts';
import { toEndpointRecord } from './records.ts';
import { retryDelivery } from './retry-delivery.ts';
import { rotateSecret } from './rotate-secret.ts';
import { sendTestEvent } from './send-test-event.ts';
import { updateEndpoint } from './update-endpoint.ts';

const tag = 'Webhooks';
const access = { permission: 'webhooks.manage' } as const;
const one = { 200: { description: 'The webhook endpoint.', schema: dataOf(endpointRecord) } };
const urlRules =
  'The `url` must be `https://` (plain `http://` only on a server run with `--webhooks-allow-http`), and every address its host resolves to must be public: loopback, link-local and private ranges are refused (422) unless the server runs with `--webhooks-allow-private`. The check is made again at every delivery.';
const oneDelivery = {
  description: 'The delivery, queued.',
  schema: dataOf(deliveryRecord),
};

export const webhookRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/webhooks',
    access,
    operationId: 'listWebhooks',
    summary: "List the company's webhook endpoints",
    tag,
    responses: {
      200: {
        description: 'Every endpoint, oldest first.',
        schema: dataOf(z.array(endpointRecord)),
      },
    },
    async handler({ caller, db }) {
      return ok(await listEndpoints(db, caller.companyId));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks',
    access,
    operationId: 'createWebhook',
    summary: 'Create a webhook endpoint',
    description: `Extension. \`events\`: the event types to send (docs/webhooks.md), or \`["*"]\` for all. The answer holds the signing \`secret\` (\`whsec_…\`), shown this once. ${urlRules} At most 20 endpoints per company.`,
    tag,
    body: createEndpointBody,
    responses: {
      201: {
        description: 'Created, with its secret.',
        schema: dataOf(createdEndpointRecord),
        headers: { Location: 'URL of the endpoint.' },
      },
    },
    async handler({ body, caller, services, baseUrl, db }) {
      const endpoint = await createEndpoint(
        services.webhooks.endpoints,
        db,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return created(endpoint, `${baseUrl}/${endpoint.id}`);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/{id}',
    access,
    operationId: 'getWebhook',
    summary: 'Read a webhook endpoint',
    tag,
    params: endpointParams,
    responses: one,
    async handler({ params, caller, db }) {
      const row = await readEndpointRow(db, caller.companyId, params.id);
      return ok(toEndpointRecord(row));
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/webhooks/{id}',
    access,
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint',
    description: `Only what is sent changes. \`enabled: false\` disables it (its pending deliveries fail without an attempt); \`enabled: true\` enables it again, also after the server disabled it. ${urlRules}`,
    tag,
    params: endpointParams,
    body: updateEndpointBody,
    responses: one,
    async handler({ params, body, caller, services, db }) {
      return ok(
        await updateEndpoint(
          services.webhooks.endpoints,
          db,
          caller.companyId,
          params.id,
          body,
          services.clock.now(),
        ),
      );
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/webhooks/{id}',
    access,
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint and its deliveries',
    tag,
    params: endpointParams,
    responses: { 204: { description: 'Deleted.' } },
    async handler({ params, caller, services, db }) {
      await deleteEndpoint(services, db, caller.companyId, params.id);
      return noContent();
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    access,
    operationId: 'rotateWebhookSecret',
    summary: "Replace the endpoint's signing secret",
    description:
      'The new secret is answered this once. For 24 hours the old one keeps signing beside it: each delivery carries two `v1,` signatures, so receivers can switch without losing an event.',
    tag,
    params: endpointParams,
    responses: { 200: { description: 'The new secret.', schema: dataOf(rotatedSecretRecord) } },
    async handler({ params, caller, services, db }) {
      return ok(
        await rotateSecret(
          services.webhooks.endpoints,
          db,
          caller.companyId,
          params.id,
          services.clock.now(),
        ),
      );
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    access,
    operationId: 'listWebhookDeliveries',
    summary: "List an endpoint's deliveries",
    description:
      'Newest first: status, attempts, the last answer (status and its first 1 KiB) or error, and when the next attempt is due. Finished deliveries are kept 30 days.',
    tag,
    params: endpointParams,
    query: deliveryListQuery,
    responses: { 200: { description: 'A page of deliveries.', schema: pageOf(deliveryRecord) } },
    async handler({ params, query, caller, baseUrl, db }) {
      await readEndpointRow(db, caller.companyId, params.id);
      const { rows, total } = await listDeliveries(db, params.id, query);
      return pageReply(rows, total, query, baseUrl, { status: query.status });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{delivery}/retry',
    access,
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again',
    description:
      'A failed or delivered delivery is queued again, due now, with the same `webhook-id` and body, and its retry schedule starts over. A pending one is 409 (it is already queued), and so is a delivery of a disabled endpoint.',
    tag,
    params: deliveryParams,
    responses: { 202: oneDelivery },
    async handler({ params, caller, services, db }) {
      const delivery = await retryDelivery(
        services,
        db,
        caller.companyId,
        params.id,
        params.delivery,
        services.clock.now(),
      );
      return { status: 202, body: { data: delivery } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/{id}/test',
    access,
    operationId: 'testWebhook',
    summary: 'Send a webhook.test event',
    description:
      'Queues a `webhook.test` event (its data: the endpoint) for this endpoint alone, whatever it subscribes to; it is signed and retried like any event. A disabled endpoint is 409.',
    tag,
    params: endpointParams,
    responses: { 202: oneDelivery },
    async handler({ params, caller, services, db }) {
      const delivery = await sendTestEvent(
        services,
        db,
        caller.companyId,
        params.id,
        services.clock.now(),
      );
      return { status: 202, body: { data: delivery } };
    },
  }),
];
