import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, and what the official library made of it. */
export interface Received {
  id: string;
  timestamp: string;
  signatures: string[];
  headers: IncomingHttpHeaders;
  body: string;
  /** The payload as `Webhook.verify` returned it, when some secret verified it. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the event by path.
  event: any;
  /** Which of the receiver's secrets verified it (their positions in `secrets`). */
  verifiedBy: number[];
  at: number;
}

/** What the receiver answers to one request: a status, and optionally a body or a delay. */
export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answers after this many ms (a slow receiver); `Infinity` never answers. */
  delayMs?: number;
}

/**
 * A real webhook receiver (node:http on port 0) that verifies every request with the
 * official Standard Webhooks library (`standardwebhooks`), never with the server's own
 * signing code. `secrets` is what it verifies with (a rotation adds one); `answer` decides
 * each reply (204 by default); `stop()` closes it (the receiver down), `start()` opens it
 * again on the same port.
 */
export class Receiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  answer: (request: Received, index: number) => Answer = () => ({ status: 204 });
  private server: Server | undefined;
  private port = 0;
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private readonly hanging = new Set<() => void>();

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Requests that every secret failed to verify: must stay empty. */
  get unverified(): Received[] {
    return this.received.filter((r) => r.verifiedBy.length === 0);
  }

  /** Verified events, in arrival order. */
  // biome-ignore lint/suspicious/noExplicitAny: as for Received.event.
  get events(): any[] {
    return this.received.filter((r) => r.verifiedBy.length > 0).map((r) => r.event);
  }

  async start(): Promise<this> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const entry = this.verify(request.headers, body);
        this.received.push(entry);
        const answer = this.answer(entry, this.received.length - 1);
        const reply = () => {
          this.hanging.delete(reply);
          if (response.writableEnded || response.destroyed) return;
          response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          response.end(answer.body ?? '');
        };
        if (answer.delayMs === Number.POSITIVE_INFINITY) this.hanging.add(reply);
        else if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
        this.wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Closes the listener and every connection: the receiver is down. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const reply of this.hanging) reply();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `count` requests have arrived in all (5 s at most). */
  async waitFor(count: number, timeoutMs = 5000): Promise<void> {
    if (this.received.length >= count) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver got ${this.received.length} of ${count} requests`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (this.received.length >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  private verify(headers: IncomingHttpHeaders, body: string): Received {
    const verifiedBy: number[] = [];
    let event: unknown;
    this.secrets.forEach((secret, index) => {
      try {
        event = new Webhook(secret).verify(body, headers as Record<string, string>);
        verifiedBy.push(index);
      } catch {
        // Not signed with this secret.
      }
    });
    return {
      id: String(headers['webhook-id']),
      timestamp: String(headers['webhook-timestamp']),
      signatures: String(headers['webhook-signature'] ?? '').split(' '),
      headers,
      body,
      event,
      verifiedBy,
      at: performance.now(),
    };
  }
}
