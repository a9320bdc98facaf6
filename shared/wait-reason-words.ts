/**
 * The codes of why a queued job waits and what shop staff should do for each
 * (docs/printing.md, "Why a job waits"). Plain data, no zod: the console bundles it.
 */

export const waitReasonCodes = [
  'no_agent_for_route',
  'no_agent_online',
  'agent_paused',
  'printer_out_of_paper',
  'printer_paper_jam',
  'printer_cover_open',
  'printer_offline',
  'printer_stopped',
  'printer_misconfigured',
] as const;
export type WaitReasonCode = (typeof waitReasonCodes)[number];

/** What shop staff should do, per code (the console shows it beside the reason). */
export const waitReasonAdvice: Record<WaitReasonCode, string> = {
  no_agent_for_route: 'Give this route to a print agent (its settings, or the console).',
  no_agent_online: 'Start the print agent on the computer that serves this route.',
  agent_paused: 'Resume the print agent.',
  printer_out_of_paper: 'Load paper; the job prints by itself.',
  printer_paper_jam: 'Clear the jam; the job prints by itself.',
  printer_cover_open: 'Close the cover; the job prints by itself.',
  printer_offline: 'Switch the printer on and check its cable or network.',
  printer_stopped: 'Resume the printer queue (CUPS: cupsenable; Windows: resume the printer).',
  printer_misconfigured:
    'Fix the route: name a printer this computer has, with a profile in the language that printer takes.',
};
