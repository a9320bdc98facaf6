import { useEffect } from 'preact/hooks';

/** The tab's title for a page: "Jobs · ShopDesk" (the browser's history and tabs show it). */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · ShopDesk`;
  }, [title]);
}
