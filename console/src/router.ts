import { useEffect, useState } from 'preact/hooks';

/** The console's address bar: `/console/<view>/<id>?query`. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => setPath(location.pathname + location.search);
    addEventListener('popstate', update);
    addEventListener('console-navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('console-navigate', update);
    };
  }, []);
  return path;
}

export function navigate(to: string): void {
  history.pushState(null, '', to);
  dispatchEvent(new Event('console-navigate'));
}

/** A link that changes the view without reloading (plain clicks only). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/console/');
}
