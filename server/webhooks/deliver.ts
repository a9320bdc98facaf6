import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import type { Agent, Dispatcher, request } from 'undici';
import type { WebhookPolicy } from '../config.ts';
import {
  checkedLookup,
  type Resolve,
  refusedAddressText,
  refusedRangeOf,
} from './address-policy.ts';
import { signatureHeaders } from './signing.ts';

/** What one attempt came to. A 2xx answer is a delivery; anything else is retried. */
export interface AttemptOutcome {
  delivered: boolean;
  /** The answer's status, when one came. */
  status: number | null;
  /** The first 1 KiB of the answer's body. */
  body: string | null;
  /** Why no 2xx came, when it did not. */
  error: string | null;
}

export const responseBodyLimit = 1024;

/** Lenient: a body cut inside a character ends with a replacement character. */
const utf8 = new TextDecoder();

/**
 * The HTTP client of deliveries (undici): keep-alive connections per receiver, no redirect
 * followed (a 3xx is a failed attempt), and — unless private addresses are allowed — every
 * connection made to an address `checkedLookup` resolved and checked. undici is loaded and
 * the agent made by the first attempt, not at start (~0.15 s of CPU): a server with no
 * endpoint loads no HTTP client.
 */
export class DeliveryClient {
  private readonly policy: WebhookPolicy;
  private readonly resolve: Resolve | undefined;
  private loaded: Promise<{ request: typeof request; agent: Agent }> | undefined;

  constructor(policy: WebhookPolicy, resolve?: Resolve) {
    this.policy = policy;
    this.resolve = resolve;
  }

  /** undici's `request` and the deliveries' agent. */
  ready(): Promise<{ request: typeof request; agent: Agent }> {
    this.loaded ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connections: 32,
        keepAliveTimeout: 4_000,
        connect: this.policy.allowPrivate
          ? { timeout: 10_000 }
          : { timeout: 10_000, lookup: checkedLookup(this.resolve) },
      }),
    }));
    return this.loaded;
  }

  async close(): Promise<void> {
    await (await this.loaded)?.agent.close();
  }
}

/** A URL that must not be called under the policy as it is now (checked on every attempt). */
function refusalAtDelivery(url: URL, policy: WebhookPolicy): string | undefined {
  if (url.protocol === 'http:' && !policy.allowHttp) {
    return 'plain http:// is not allowed on this server (--webhooks-allow-http)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${url.protocol} is not allowed`;
  if (policy.allowPrivate) return undefined;
  // An IP literal is never looked up, so the connection's check would not see it.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const range = isIP(host) ? refusedRangeOf(host) : undefined;
  return range
    ? `${refusedAddressText(host)} is a ${range} address; refused (--webhooks-allow-private)`
    : undefined;
}

export interface Attempt {
  url: string;
  eventId: string;
  body: string;
  /** The signing keys: the current secret's, and the previous one's while it lasts. */
  keys: readonly KeyObject[];
  /** The attempt's own time, in Unix seconds: `webhook-timestamp`. */
  timestampSeconds: number;
}

/**
 * POSTs the event once. Never throws: a refused address, a connection error, a timeout
 * (`timeoutMs` for the whole attempt, answer included) and a non-2xx answer are outcomes.
 */
export async function attemptDelivery(
  attempt: Attempt,
  options: {
    client: DeliveryClient;
    policy: WebhookPolicy;
    timeoutMs: number;
    /** Aborted when the server shuts down. */
    signal: AbortSignal;
  },
): Promise<AttemptOutcome> {
  const url = new URL(attempt.url);
  const refused = refusalAtDelivery(url, options.policy);
  if (refused) return { delivered: false, status: null, body: null, error: refused };
  // One controller and one timer per attempt; the shutdown signal is listened to, not
  // combined (AbortSignal.any ties every attempt's signal to the long-lived one).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onStop = () => controller.abort();
  options.signal.addEventListener('abort', onStop, { once: true });
  try {
    const { request, agent } = await options.client.ready();
    const answer = await request(url, {
      method: 'POST',
      dispatcher: agent,
      signal: controller.signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ShopDesk-Webhooks/1',
        ...signatureHeaders(attempt.eventId, attempt.timestampSeconds, attempt.body, attempt.keys),
      },
      body: attempt.body,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const body = await firstBytes(answer.body, responseBodyLimit);
    const delivered = answer.statusCode >= 200 && answer.statusCode < 300;
    return {
      delivered,
      status: answer.statusCode,
      body,
      error: delivered ? null : `answered ${answer.statusCode}`,
    };
  } catch (error) {
    let message = describe(error);
    if (timedOut) message = `no answer within ${options.timeoutMs / 1000} s`;
    else if (options.signal.aborted) message = 'the server shut down during the attempt';
    return { delivered: false, status: null, body: null, error: message };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onStop);
  }
}

/** Reads up to `limit` bytes of the answer, then lets the rest go. */
async function firstBytes(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size >= limit) {
      // The receiver may stream without end: what is past the limit is not read.
      body.destroy();
      break;
    }
  }
  return utf8.decode(Buffer.concat(chunks).subarray(0, limit));
}

function describe(error: unknown): string {
  const e = error as {
    message?: string;
    code?: string;
    cause?: { message?: string; code?: string };
  };
  const cause = e?.cause?.message ?? '';
  const base = e?.message ?? String(error);
  const text = cause && !base.includes(cause) ? `${base}: ${cause}` : base;
  return text.slice(0, 500);
}
