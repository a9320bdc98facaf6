import { formatWithOptions } from 'node:util';
import type { LogFormat } from './config.ts';

/**
 * How the server's log reads: `json`, one JSON object a line (pino's own, for log shippers,
 * files and services), or `human`, a line a person reads in a terminal:
 *
 *     18:02:11 INFO  listening url=http://127.0.0.1:8080/api/v1 docs=http://…/api/v1/docs
 *     18:02:14 INFO  GET /api/v1/health 200 1.2 ms req_id=…
 *
 * `shopdesk serve` picks `human` when its log goes to a terminal, `json` otherwise; `--log-format`
 * decides instead (docs/security.md, "What is logged"). The same fields either way: a human
 * line is the JSON line rewritten, so nothing is logged in one format that the other hides.
 * A formatter of our own rather than pino-pretty (docs/architecture.md): a few lines against
 * a dependency tree, and pino's transports run in a worker thread whose last lines a
 * `process.exit` after close may lose.
 */

/** The format when none is asked for: a person at a terminal reads it, or a program. */
export const defaultLogFormat = (isTerminal: boolean): LogFormat => (isTerminal ? 'human' : 'json');

const levelNames: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

/** The fields every line has, shown in its own place rather than as `key=value`. */
const placed = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

const valueText = (value: unknown): string =>
  typeof value === 'string' && /^[^\s"=]+$/.test(value)
    ? value
    : formatWithOptions({ breakLength: Number.POSITIVE_INFINITY, colors: false }, '%j', value);

const clock = (time: unknown): string => {
  const at = new Date(typeof time === 'number' ? time : Date.now());
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
};

/** One JSON log line as a person reads it; a line that is no JSON object passes unchanged. */
export function humanLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  if (entry === null || typeof entry !== 'object') return json;
  const level = levelNames[entry.level as number] ?? String(entry.level);
  let message = String(entry.msg ?? '');
  const shown = new Set(placed);
  // An answered request says what and how it went first: `GET /api/v1/health 200 1.2 ms`.
  if (message === 'request' && entry.method && entry.path && entry.status !== undefined) {
    message = `${entry.method} ${entry.path} ${entry.status} ${entry.ms ?? '?'} ms`;
    for (const key of ['method', 'path', 'status', 'ms']) shown.add(key);
  }
  const rest = Object.entries(entry).filter(([key]) => !shown.has(key));
  let stack = '';
  const fields = rest.map(([key, value]) => {
    if (key === 'err' && value && typeof value === 'object') {
      const { stack: trace, ...error } = value as Record<string, unknown>;
      if (typeof trace === 'string') stack = `\n    ${trace.split('\n').join('\n    ')}`;
      return `err=${valueText(error)}`;
    }
    return `${key}=${valueText(value)}`;
  });
  return `${clock(entry.time)} ${level} ${[message, ...fields].filter(Boolean).join(' ')}${stack}\n`;
}

/** A pino destination that writes each line as `humanLine` makes it, to `write`. */
export function humanDestination(write: (text: string) => void): { write(line: string): void } {
  return {
    write(line) {
      for (const one of line.split('\n')) if (one !== '') write(humanLine(one));
    },
  };
}
