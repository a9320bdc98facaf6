import type { PrinterInfo } from '../../../shared/printer-info.ts';
import { printerWaitReason } from '../../../shared/wait-reasons.ts';

/** A desktop notification to show: its title and body. */
export interface PrinterNotice {
  title: string;
  body: string;
}

interface Episode {
  since: number;
  message: string;
  notified: boolean;
}

/**
 * Which desktop notifications the tray shows about its printers, as the server's
 * `printer.attention` / `printer.recovered` do (docs/agent.md, "Printer notifications"): a
 * printer that cannot print is announced once it has lasted `thresholdMs` (30 s: a cover
 * opened to change paper is no alert), once per episode, and its recovery once, only when
 * it was announced. Pure (no Electron): `update` takes the printers as last read and the time.
 */
export class PrinterNotices {
  readonly #episodes = new Map<string, Episode>();
  readonly #thresholdMs: number;

  constructor(thresholdMs = 30_000) {
    this.#thresholdMs = thresholdMs;
  }

  update(printers: readonly PrinterInfo[], now: number): PrinterNotice[] {
    const notices: PrinterNotice[] = [];
    const seen = new Set<string>();
    for (const printer of printers) {
      const reason = printerWaitReason(printer);
      if (reason === null) continue;
      seen.add(printer.name);
      const episode = this.#episodes.get(printer.name) ?? {
        since: now,
        message: reason.message,
        notified: false,
      };
      episode.message = reason.message;
      this.#episodes.set(printer.name, episode);
      if (!episode.notified && now - episode.since >= this.#thresholdMs) {
        episode.notified = true;
        notices.push({ title: `${printer.name} needs attention`, body: `${reason.message}.` });
      }
    }
    for (const [name, episode] of this.#episodes) {
      if (seen.has(name)) continue;
      this.#episodes.delete(name);
      if (episode.notified) {
        notices.push({ title: `${name} prints again`, body: `It was: ${episode.message}.` });
      }
    }
    return notices;
  }
}
