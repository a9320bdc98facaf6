import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

/** Loads with `read` whenever `keys` change; keeps the last answer while reloading. */
export function useLoad<T>(read: () => Promise<T>, keys: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let stale = false;
    read().then(
      (answer) => {
        if (stale) return;
        setData(answer);
        setError('');
      },
      (failure: unknown) => {
        if (!stale) setError(failure instanceof ApiError ? failure.message : String(failure));
      },
    );
    return () => {
      stale = true;
    };
  }, [...keys, tick]);
  return { data, error, reload: () => setTick((n) => n + 1) };
}
