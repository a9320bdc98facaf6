/**
 * When `shopdesk agent` should stop: SIGINT or SIGTERM (a second one means "now"), the
 * caller's abort signal, or the agent itself (a refused token). The first reason wins.
 */
export interface StopRequest {
  /** Resolves with the reason of the first request. */
  requested: Promise<string>;
  request(reason: string): void;
  /** Removes the signal handlers this installed. */
  dispose(): void;
}

export function listenForStop(options: {
  signal?: AbortSignal | undefined;
  /** Install SIGINT/SIGTERM handlers (default true). */
  handleSignals?: boolean | undefined;
}): StopRequest {
  const listeners: Array<[NodeJS.Signals, () => void]> = [];
  let stopping = false;
  let request: (reason: string) => void = () => {};
  const requested = new Promise<string>((resolveStop) => {
    request = (reason) => {
      stopping = true;
      resolveStop(reason);
    };
  });
  if (options.signal?.aborted) request('abort');
  options.signal?.addEventListener('abort', () => request('abort'), { once: true });
  if (options.handleSignals !== false) {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      const onSignal = () => {
        // A second signal means "now": the journal covers a job cut off mid-print.
        if (stopping) process.exit(130);
        request(name);
      };
      process.on(name, onSignal);
      listeners.push([name, onSignal]);
    }
  }
  return {
    requested,
    request,
    dispose: () => {
      for (const [name, listener] of listeners) process.off(name, listener);
    },
  };
}
