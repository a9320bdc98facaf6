import { useLayoutEffect, useRef } from 'preact/hooks';
import { timeInWords } from '../../../ui/recent-jobs.tsx';
import type { LogLine } from '../../core/status.ts';
import { bridge, settle } from './bridge.ts';

/** The agent's latest log lines; it follows new lines while the reader is at the bottom. */
export function LogView(props: { lines: readonly LogLine[]; onProblem: (text: string) => void }) {
  const box = useRef<HTMLPreElement>(null);
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    if (atBottom.current && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [props.lines]);
  const openLogs = async () => {
    const result = await settle(() => bridge.openLogs());
    if (!result.ok) props.onProblem(result.message);
  };
  return (
    <section class="card card-wide" aria-labelledby="log-title">
      <div class="card-head">
        <h2 id="log-title">Agent log</h2>
        <button type="button" class="button button-quiet" onClick={() => void openLogs()}>
          Open log file
        </button>
      </div>
      <pre
        id="log"
        class="log"
        ref={box}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard to scroll it (axe: scrollable-region-focusable).
        tabIndex={0}
        onScroll={(event) => {
          const element = event.currentTarget;
          atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
        }}
      >
        {props.lines.map((line, index) => (
          // Lines have no id of their own; the list only grows at the end and drops at the start.
          <span key={`${line.at}-${index}`} class={`log-${line.level}`}>
            {`${timeInWords(line.at)}  ${line.level.toUpperCase().padEnd(5)} ${line.message}\n`}
          </span>
        ))}
      </pre>
    </section>
  );
}
