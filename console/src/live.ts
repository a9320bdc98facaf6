import { useEffect, useState } from 'preact/hooks';

/**
 * The company's live version (`GET /api/v1/events/stream`): a number that changes with
 * every change the pages show. EventSource reconnects by itself and sends Last-Event-ID,
 * so a change made while it was away arrives as soon as it is back.
 */
let source: EventSource | undefined;
let version = '';
const listeners = new Set<(version: string) => void>();

function open(): void {
  if (source) return;
  source = new EventSource('/api/v1/events/stream');
  source.addEventListener('change', (event) => {
    version = (event as MessageEvent<string>).data;
    for (const listener of listeners) listener(version);
  });
}

export function closeLive(): void {
  source?.close();
  source = undefined;
}

/** Re-renders the caller whenever something changed; its value keys reloads. */
export function useLiveVersion(): string {
  const [current, setCurrent] = useState(version);
  useEffect(() => {
    open();
    listeners.add(setCurrent);
    return () => {
      listeners.delete(setCurrent);
    };
  }, []);
  return current;
}
