import type { ComponentChildren } from 'preact';

/**
 * What a page with nothing in it says: what the page is for, and the next step (a link or
 * a button as `children`).
 */
export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty" data-testid="empty-state">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-next">{children}</div>}
    </div>
  );
}
