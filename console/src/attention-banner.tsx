import type { OverviewRecord } from '../../shared/console.ts';
import { api } from './api.ts';
import { useLiveVersion } from './live.ts';
import { useLoad } from './load.ts';
import { onLinkClick } from './router.ts';

/**
 * On every page, while something cannot print (the Overview's `cannot_print`, most serious
 * first): the first of them in words, how many more, and a link to the Overview. Nothing when
 * all is well. Updates with the live stream, like the pages.
 */
export function AttentionBanner() {
  // After the page's own read: the tab shows the change first, then the banner follows.
  const live = useLiveVersion(300);
  const { data } = useLoad(
    () =>
      api<{ data: OverviewRecord }>('GET', '/console/overview').then(
        (answer) => answer.data.cannot_print,
      ),
    [live],
  );
  if (!data || data.length === 0) return null;
  const [first] = data;
  const more = data.length - 1;
  return (
    <section class="attention banner" aria-label="Needs attention" data-testid="attention-banner">
      <strong>Needs attention:</strong> {first!.message}
      {more > 0 && ` (and ${more} more)`}.{' '}
      <a href="/console/" onClick={onLinkClick}>
        See the Overview
      </a>
    </section>
  );
}
