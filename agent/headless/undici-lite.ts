import type * as Undici from 'undici';
import api from 'undici/lib/api/index.js';
import errorClasses from 'undici/lib/core/errors.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';

/**
 * What the agent uses of undici, without the rest of it: the headless bundle (bundle.ts)
 * resolves `undici` to this file. undici's index loads every part of the package at once
 * (fetch, WebSocket, the cache, the mocks, …), which costs the agent's process ~12 MiB of
 * memory it never uses (docs/agent.md, "Footprint"). An export missing here fails the bundle's
 * build, not the agent at run time.
 */

// As undici's index does: the request/stream/… methods live on every dispatcher.
Object.assign(DispatcherClass.prototype, api);

export const Agent = AgentClass;
export const errors = errorClasses;
export type Dispatcher = Undici.Dispatcher;

let shared: Undici.Agent | undefined;

/** undici's `request(url, options)` on a dispatcher of its own (the CUPS back-end's IPP calls). */
export const request = ((url: string | URL, options: Undici.Dispatcher.RequestOptions) => {
  shared ??= new AgentClass();
  const target = new URL(url);
  return shared.request({
    ...options,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: options.method ?? 'GET',
  });
}) as unknown as typeof Undici.request;
