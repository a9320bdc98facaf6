/**
 * The codes a failed job can carry (the agent's print outcomes, the server's own), each in
 * words, with what the shop should do and whether retrying the same job can help. One
 * catalogue: the console's job page reads it, and docs/agent.md's table "When a job fails"
 * is checked against it by test/docs/job-errors.test.ts. Plain data, no zod: the console
 * bundles it.
 */

/**
 * Whether **Retry** (the same job, queued again) can help: `after_fix` once the cause is
 * fixed; `look_first` when the page may have come out (retry only if it did not); `never`
 * when the same job would fail the same way (its document, data or options are the cause).
 */
export type RetryHelp = 'after_fix' | 'look_first' | 'never';

export interface JobErrorWords {
  /** What happened, in words. */
  words: string;
  /** What to do. */
  advice: string;
  retry: RetryHelp;
}

export const jobErrorCatalogue = {
  printer_stopped: {
    words: 'The printer queue was stopped while the job was in it.',
    advice: 'Check the printer and resume its queue, then retry the job.',
    retry: 'after_fix',
  },
  job_aborted: {
    words: 'The print system gave up on the job (a filter or connection error).',
    advice: 'Check the printer and the message, then retry.',
    retry: 'after_fix',
  },
  job_stopped: {
    words: 'The print system stopped the job.',
    advice: 'Check the printer and the message, then retry.',
    retry: 'after_fix',
  },
  job_canceled: {
    words: 'Someone cancelled the job on the computer or the printer.',
    advice: 'Retry it if it should still print.',
    retry: 'after_fix',
  },
  print_timeout: {
    words: 'The printer did not finish within 5 minutes; the job was cancelled.',
    advice: 'Check the printer, then retry.',
    retry: 'after_fix',
  },
  spooler_rejected: {
    words: 'The computer refused the job: no such printer, or its queue does not accept jobs.',
    advice: "Check the route's printer name in the agent's settings, then retry.",
    retry: 'after_fix',
  },
  invalid_printer: {
    words: 'The route names something that is not a printer of this computer.',
    advice:
      'Map the route to a printer of that computer (the agent settings, the tray, or the console), then retry.',
    retry: 'after_fix',
  },
  no_route: {
    words: 'The agent that took the job has no such route.',
    advice: 'Add the route to the agent (its settings, or the console), then retry.',
    retry: 'after_fix',
  },
  invalid_options: {
    words: "The job's print options are not valid for this printer.",
    advice:
      'Ask whoever sent the job to send it again with valid options; retrying sends the same options.',
    retry: 'never',
  },
  write_failed: {
    words: 'The agent could not write the document into its folder.',
    advice: 'Check the folder exists and the agent may write to it, then retry.',
    retry: 'after_fix',
  },
  printer_error: {
    words: 'The printer reported an error, or its state could not be read.',
    advice: 'Look at the printer and the message, fix it, then retry.',
    retry: 'after_fix',
  },
  agent_interrupted: {
    words: "The print agent stopped while the job was in the printer's hands.",
    advice:
      'Look at the printer first: if the page came out, do nothing; if not, retry or reprint.',
    retry: 'look_first',
  },
  agent_stopped: {
    words: 'The print agent stopped while paused, before printing the job.',
    advice: 'Retry.',
    retry: 'after_fix',
  },
  lease_expired: {
    words: 'The print agent that took the job went away before saying how it went.',
    advice: 'Check that agent is running, then retry.',
    retry: 'after_fix',
  },
  document_mismatch: {
    words: 'The document did not match its checksum.',
    advice: 'Ask whoever sent the job to send it again; retrying sends the same document.',
    retry: 'never',
  },
  printer_unreachable: {
    words:
      'The printer could not be reached (refused, no answer, no such device); nothing was sent.',
    advice: 'Switch it on, check its cable and address, then retry.',
    retry: 'after_fix',
  },
  printer_not_ready: {
    words:
      'The printer said it cannot print (out of paper, cover open, offline, an error); nothing was sent.',
    advice: 'Fix what the message says, then retry.',
    retry: 'after_fix',
  },
  print_unconfirmed: {
    words: 'The printer was sent the job but never said it printed it.',
    advice:
      'Look at the printer first: if the page came out, do nothing; if not, retry or reprint.',
    retry: 'look_first',
  },
  template_render_failed: {
    words: "The job's template could not be drawn with its data for this printer.",
    advice:
      'Fix the template or the data and send a new job; retrying draws the same template version with the same data.',
    retry: 'never',
  },
} as const satisfies Record<string, JobErrorWords>;

export type JobErrorCode = keyof typeof jobErrorCatalogue;

/** The catalogue's entry for a code, or null for a code it does not know (or none). */
export function jobErrorWords(code: string | null | undefined): JobErrorWords | null {
  if (!code || !Object.hasOwn(jobErrorCatalogue, code)) return null;
  return jobErrorCatalogue[code as JobErrorCode];
}

/** The codes whose job a retry cannot help: "Retry all failed" leaves them, the page says why. */
export const neverRetried: readonly string[] = Object.entries(jobErrorCatalogue)
  .filter(([, entry]) => entry.retry === 'never')
  .map(([code]) => code);
