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

/**
 * Re-renders the caller whenever something changed; its value keys reloads. `settleMs`:
 * for what may come a little later (the banner), the new version is taken only once it has
 * not changed for that long (the first one at once), so that it does not read at the moment
 * every tab reads its page, and reads once for a burst of changes.
 */
export function useLiveVersion(settleMs = 0): string {
  const [current, setCurrent] = useState(version);
  useEffect(() => {
    open();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let seen = version !== '';
    const listener =
      settleMs === 0
        ? setCurrent
        : (next: string) => {
            clearTimeout(timer);
            // The stream's first version at once: what the page shows on arrival does not
            // move a moment later.
            if (!seen) {
              seen = true;
              setCurrent(next);
              return;
            }
            timer = setTimeout(() => setCurrent(next), settleMs);
          };
    listeners.add(listener);
    return () => {
      clearTimeout(timer);
      listeners.delete(listener);
    };
  }, [settleMs]);
  return current;
}
