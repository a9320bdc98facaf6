import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PrintFailureCode } from '../../agent/core/printers/backend.ts';
import { renderFailedCode } from '../../server/printing/jobs/job-renderer.ts';
import { jobErrorCatalogue, type RetryHelp } from '../../shared/job-error-words.ts';

/**
 * docs/agent.md's table "When a job fails" and the console's catalogue of job errors
 * (`shared/job-error-words.ts`) say the same, code by code; and every code the agent or the
 * server fails a job with is in the catalogue.
 */
const root = resolve(import.meta.dirname, '../..');
const doc = readFileSync(join(root, 'docs/agent.md'), 'utf8');
const section = doc.slice(doc.indexOf('## When a job fails: what the shop does'));
const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| code |')));
const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (.+?) \| (.+?) \| (.+?) \|$/gm)].map((m) => ({
  code: m[1]!,
  words: m[2]!,
  advice: m[3]!,
  retry: m[4]!,
}));
const retryWords: Record<RetryHelp, string> = {
  after_fix: 'yes, once fixed',
  look_first: 'only if nothing came out',
  never: 'no',
};

describe("docs/agent.md's table of job errors", () => {
  it('lists exactly the catalogue codes, in its words, advice and retry rule', () => {
    expect(rows.map((row) => row.code)).toEqual(Object.keys(jobErrorCatalogue));
    for (const row of rows) {
      const entry = jobErrorCatalogue[row.code as keyof typeof jobErrorCatalogue];
      expect(row, row.code).toEqual({
        code: row.code,
        words: entry.words,
        advice: entry.advice,
        retry: retryWords[entry.retry],
      });
    }
  });

  it("holds every code the agent's printers and the server fail a job with", () => {
    // A compile-time check as well: a new agent code missing here fails the type check.
    const agentCodes: Record<PrintFailureCode, true> = {
      invalid_printer: true,
      invalid_options: true,
      spooler_rejected: true,
      printer_stopped: true,
      job_aborted: true,
      job_canceled: true,
      job_stopped: true,
      print_timeout: true,
      write_failed: true,
      printer_error: true,
      no_route: true,
      document_mismatch: true,
      printer_unreachable: true,
      printer_not_ready: true,
      print_unconfirmed: true,
    };
    const serverCodes = [renderFailedCode, 'lease_expired', 'agent_interrupted', 'agent_stopped'];
    for (const code of [...Object.keys(agentCodes), ...serverCodes]) {
      expect(Object.keys(jobErrorCatalogue), code).toContain(code);
    }
  });
});
