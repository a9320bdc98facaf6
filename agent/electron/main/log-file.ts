import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LogLine } from '../../core/status.ts';

/** Past this size the log moves to `<file>.1` (one old generation kept). */
const maxLogBytes = 2 * 1024 * 1024;

/** The agent log on disk that "Open logs" shows; lines arrive already redacted. */
export class AgentLogFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    // Exists from the start, so that "Open logs" always has a file to open.
    appendFileSync(path, '');
  }

  append(line: LogLine): void {
    try {
      if ((statSync(this.path, { throwIfNoEntry: false })?.size ?? 0) > maxLogBytes) {
        renameSync(this.path, `${this.path}.1`);
      }
      appendFileSync(this.path, `${line.at} ${line.level.toUpperCase()} ${line.message}\n`);
    } catch {
      // A full disk or a locked file must not stop printing; the window still has the tail.
    }
  }
}

/** Takes secrets out of a log message: the token wherever it appears, and any Bearer value. */
export function redactSecrets(message: string, secrets: readonly string[]): string {
  let redacted = message;
  for (const secret of secrets) {
    if (secret.length >= 4) redacted = redacted.replaceAll(secret, '[token]');
  }
  return redacted.replace(/\bBearer\s+[^\s"']+/gi, 'Bearer [token]');
}
