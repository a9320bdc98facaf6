import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Services } from '../services.ts';
import type { Db } from '../storage/db.ts';
import { bearerOf, type Caller, type TokenAuthenticator } from '../tokens/index.ts';
import { type LinkPolicy, linkOrigin } from './public-origin.ts';
import type { RequestContext } from './route.ts';

/** What a handler's context takes from the pipeline (handle-request.ts's `Pipeline`). */
export interface ContextSources {
  authenticator: TokenAuthenticator;
  services: Services;
  log: Logger;
  /** Aborted when the server begins to shut down. */
  shutdown: AbortSignal;
  /** Where links point (`--public-url`, `--trust-proxy`): see public-origin.ts. */
  links?: LinkPolicy;
}

/** What the pipeline knows of a request when its handler runs (handle-request.ts). */
export interface RequestFacts {
  readonly pipeline: ContextSources;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly pathname: string;
  readonly requestId: string;
}

/**
 * What a route's handler is given. A class, not an object literal: a literal with getters
 * (the two lazy ones below) made V8 build its accessors anew for every request, in the old
 * generation: about 5 KB a request promoted, young-generation pauses of 15–25 ms instead of
 * under 1 ms, and more CPU (`npm run bench` with the servers under `--trace-gc`).
 */
export class HandlerContext implements RequestContext<unknown, unknown, unknown> {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly caller: Caller;
  readonly services: Services;
  readonly request: IncomingMessage;
  readonly requestId: string;
  readonly log: Logger;
  readonly #pipeline: ContextSources;
  readonly #response: ServerResponse;
  readonly #pathname: string;
  #signal: AbortSignal | undefined;
  #release: (() => void) | undefined;
  #baseUrl: string | undefined;
  #hooked: Record<string, unknown> | undefined;

  constructor(
    exchange: RequestFacts,
    caller: Caller,
    input: { params: unknown; query: unknown; body: unknown },
  ) {
    this.#pipeline = exchange.pipeline;
    this.#response = exchange.response;
    this.#pathname = exchange.pathname;
    this.params = input.params;
    this.query = input.query;
    this.body = input.body;
    this.caller = caller;
    this.services = exchange.pipeline.services;
    this.request = exchange.request;
    this.requestId = exchange.requestId;
    this.log = exchange.pipeline.log;
  }

  /** A field, not a method: handlers take it out of the context (`{ stillAuthenticated }`). */
  #db: Db | undefined;

  /** The database, or the transaction of a keyed request (set by the idempotency step). */
  get db(): Db {
    return this.#db ?? this.services.storage.db;
  }

  set db(trx: Db) {
    this.#db = trx;
  }

  readonly stillAuthenticated = async (): Promise<boolean> => {
    const again = await this.#pipeline.authenticator.authenticate(bearerOf(this.request) ?? '', {
      fresh: true,
    });
    return again !== null && again.tokenId === this.caller.tokenId;
  };

  /** Made on first read: most handlers never look at it, and it costs listeners. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      const made = abortSignalOf(this.#response, this.#pipeline.shutdown);
      this.#signal = made.signal;
      this.#release = made.release;
    }
    return this.#signal;
  }

  get aborted(): boolean {
    return this.#signal
      ? this.#signal.aborted
      : this.#pipeline.shutdown.aborted || clientGone(this.#response);
  }

  get baseUrl(): string {
    this.#baseUrl ??= `${linkOrigin(this.#pipeline.links ?? {}, this.request)}${this.#pathname}`;
    return this.#baseUrl;
  }

  /** Made on first use: only the routes whose hooks find something use it. */
  get hooked(): Record<string, unknown> {
    this.#hooked ??= {};
    return this.#hooked;
  }

  /** Drops the abort signal's listeners once the handler is done. */
  release(): void {
    this.#release?.();
  }
}

/**
 * Aborts when the client goes away before its answer is written, or when the server
 * begins to shut down. `release` drops the listeners once the handler is done.
 */
function abortSignalOf(
  response: ServerResponse,
  shutdown: AbortSignal,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  const onShutdown = () => controller.abort(shutdown.reason);
  if (shutdown.aborted) onShutdown();
  else if (clientGone(response)) controller.abort();
  response.once('close', onClose);
  shutdown.addEventListener('abort', onShutdown, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      response.off('close', onClose);
      shutdown.removeEventListener('abort', onShutdown);
    },
  };
}

/** The connection closed before the answer was written out. */
const clientGone = (response: ServerResponse): boolean =>
  response.destroyed && !response.writableFinished;
