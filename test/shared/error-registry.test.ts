import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ErrorEntry, errorCodes, errorRegistry } from '../../shared/errors.ts';
import { root, sourceFiles } from '../architecture/import-graph.ts';

/**
 * The error registry kept in step, as Fastify keeps its errors table: with the code that
 * raises the errors, and with the table of docs/http.md. Every answer's code comes from an
 * `HttpError` (domain errors become one in `httpErrorOf`), so the server's codes are the
 * literal first arguments of `new HttpError(…)`.
 */

/**
 * The codes `new HttpError('…'` names across server/, with where; and the files that pass
 * it a code that is not a literal, which would escape the check.
 */
function raisedCodes(): { raised: Map<string, string[]>; notLiteral: string[] } {
  const raised = new Map<string, string[]>();
  const notLiteral: string[] = [];
  for (const file of sourceFiles('server')) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(/new HttpError\(\s*(['"`])(\w+)\1/g)) {
      raised.set(match[2]!, [...(raised.get(match[2]!) ?? []), file]);
    }
    if (/new HttpError\(\s*[^'"`\s]/.test(text)) notLiteral.push(file);
  }
  return { raised, notLiteral };
}

/** The rows of the "Error codes" table of docs/http.md: code → status. */
function documentedCodes(): Map<string, number> {
  const text = readFileSync(join(root, 'docs/http.md'), 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith('Error codes'));
  if (!section) throw new Error('docs/http.md has no "## Error codes" section');
  const rows = [...section.matchAll(/^\| `(\w+)` \| (\d{3}) \| .+ \|$/gm)];
  return new Map(rows.map((row) => [row[1]!, Number(row[2])]));
}

describe('the error registry (shared/errors.ts)', () => {
  const { raised, notLiteral } = raisedCodes();
  const documented = documentedCodes();

  it('finds what it checks', () => {
    expect(raised.get('credential_in_url')).toEqual(['server/http/query.ts']);
    expect(documented.size).toBeGreaterThan(10);
  });

  it('sees every code raised: each is a literal', () => {
    expect(notLiteral).toEqual([]);
  });

  it.each(errorCodes)('%s is raised somewhere in server/', (code) => {
    expect(raised.has(code)).toBe(true);
  });

  it('holds every code the server raises', () => {
    const unknown = [...raised.keys()].filter((code) => !(code in errorRegistry));
    expect(unknown).toEqual([]);
  });

  it('matches the table of docs/http.md, code for code and status for status', () => {
    const registry = new Map(errorCodes.map((code) => [code, errorRegistry[code].status]));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(registry));
  });

  it('names one OpenAPI response per status, each status with errors its own', () => {
    const entries: [string, ErrorEntry][] = errorCodes.map((code) => [code, errorRegistry[code]]);
    const documentedStatuses = entries.filter(([, e]) => e.response).map(([, e]) => e.status);
    expect(new Set(documentedStatuses).size).toBe(documentedStatuses.length);
    const names = entries.flatMap(([, e]) => (e.response ? [e.response.name] : []));
    expect(new Set(names).size).toBe(names.length);
  });
});
