/**
 * How a place is doing, in words and colour together (never colour alone): a short state
 * ("Connected to shop.example.com") and, under it, each thing that needs someone, with its
 * cause and what to do. The caller decides the words; this only shows them.
 */

export type Tone = 'ok' | 'info' | 'warn' | 'bad' | 'idle';

export interface Notice {
  tone: Exclude<Tone, 'ok' | 'idle'>;
  text: string;
}

export function StatusPill(props: { words: string; tone: Tone }) {
  return (
    <span class={`pill pill-${props.tone}`} role="status">
      {props.words}
    </span>
  );
}

export function Notices(props: { notices: readonly Notice[]; label: string }) {
  return (
    <section class="banners" aria-label={props.label} aria-live="polite">
      {props.notices.map((notice) => (
        <p key={notice.text} class={`banner banner-${notice.tone}`}>
          {notice.text}
        </p>
      ))}
    </section>
  );
}
