import { afterAll, beforeAll } from 'vitest';
import type { ServerConfig } from '../../server/config.ts';
import type { CreatedEndpointRecord, DeliveryRecord } from '../../shared/webhooks.ts';
import { type Answer, startTestServer, type TestServer } from '../helpers/server.ts';
import { Receiver } from './receiver.ts';

/** Local receivers are plain http on 127.0.0.1: the tests' servers allow both. */
export const localReceivers: Partial<ServerConfig> = {
  webhooks: { allowHttp: true, allowPrivate: true },
};

/** A test server whose webhooks may go to a local receiver; a short attempt timeout. */
export function startWebhookServer(
  options: Parameters<typeof startTestServer>[0] = {},
): Promise<TestServer> {
  return startTestServer({
    ...options,
    config: { ...localReceivers, ...options.config },
    webhooks: { timeoutMs: 1000, ...options.webhooks },
  });
}

/** What a webhook test works with: a server, a token that manages webhooks, a receiver. */
export interface WebhookShop {
  server: TestServer;
  /** A token with `webhooks.manage` of the server's one company. */
  token: string;
  receiver: Receiver;
}

/**
 * A webhook server with one company and a running receiver, started before the tests of
 * the `describe` it is called in and stopped after them.
 */
export function webhookShopOfSuite(): WebhookShop {
  const shop = { receiver: new Receiver() } as WebhookShop;
  beforeAll(async () => {
    shop.server = await startWebhookServer();
    shop.token = await shop.server.token(await shop.server.createCompany(), ['webhooks.manage']);
    await shop.receiver.start();
  });
  afterAll(async () => {
    await shop.server?.close();
    await shop.receiver.stop();
  });
  return shop;
}

/** Creates an endpoint pointing at the receiver, which learns its secret. */
export async function subscribe(
  server: TestServer,
  token: string,
  receiver: Receiver,
  events: string[] = ['*'],
): Promise<CreatedEndpointRecord> {
  const answer = await server.request('POST', '/webhooks', {
    token,
    body: { url: receiver.url, events },
  });
  if (answer.status !== 201) {
    throw new Error(`create webhook: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  receiver.secrets.push(answer.body.data.secret);
  return answer.body.data;
}

/** Sends what is due now and waits for the results to be written. */
export const dispatch = (server: TestServer) => server.app.services.webhooks.runDue();

export async function deliveriesOf(
  server: TestServer,
  token: string,
  endpointId: number,
): Promise<DeliveryRecord[]> {
  const answer: Answer = await server.request(
    'GET',
    `/webhooks/${endpointId}/deliveries?per_page=100`,
    {
      token,
    },
  );
  if (answer.status !== 200) throw new Error(`deliveries: ${answer.status}`);
  return answer.body.data;
}

/** Rows in the outbox of the server's database, whatever their state. */
export async function outboxRows(server: TestServer): Promise<number> {
  const row = await server.app.services.storage.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
