import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOnly, root, sourceFiles } from './import-graph.ts';

/**
 * The screens (the console's pages, `console/src/`, and the components they share with the
 * tray's window, `ui/`) take the API's records from the contracts in `shared/` (`z.infer`
 * types, imported with `import type`), never declare them again (docs/console.md, "How the
 * pages are built"). The API spells its fields in snake_case (`created_at`, `setup_url`) and
 * the screens spell their own state in camelCase, so a type the screens declare (an
 * `interface`, a `type X = { … }`, or the answer type of an `api<…>` call) with a snake_case
 * field is a record written out by hand.
 */

const folders = ['console/src', 'ui'].filter((folder) => existsSync(join(root, folder)));
const files = folders.flatMap(sourceFiles);

/** Where a type is declared: what follows is its body, `{` … the matching `}` (or `>`). */
const declarationStart =
  /\binterface\s+\w+(?:<[^>{]*>)?\s*(?:extends[^{]*)?\{|\btype\s+\w+(?:<[^>=]*>)?\s*=\s*\{|\bapi<\s*/g;
const snakeCaseField = /\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\??\s*:/g;

/** The text from `start` to the bracket that closes the first one opened (or the end). */
function bodyFrom(code: string, start: number): string {
  let depth = 0;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (c === '{' || c === '<' || c === '(' || c === '[') depth++;
    else if ((c === '}' || c === '>' || c === ')' || c === ']') && code[i - 1] !== '=') {
      depth--;
      if (depth <= 0) return code.slice(start, i + 1);
    }
  }
  return code.slice(start);
}

/** `file:line field` for each snake_case field of a type the source declares. */
function recordsWrittenOut(file: string, source: string): string[] {
  const code = codeOnly(source);
  const found: string[] = [];
  for (const match of code.matchAll(declarationStart)) {
    const open = match.index + match[0].length - (match[0].endsWith('{') ? 1 : 0);
    const body = bodyFrom(code, open);
    for (const field of body.matchAll(snakeCaseField)) {
      const line = code.slice(0, open + field.index).split('\n').length;
      found.push(`${file}:${line} ${field[1]}`);
    }
  }
  return found;
}

describe('the screens take the API records from shared/', () => {
  it('finds a record written out by hand, in each place one can be declared', () => {
    const sample = [
      'interface Token { id: number; created_at: string }',
      'type Delivery = { last_error: string | null };',
      "const answer = await api<{ data: { setup_url: string } }>('POST', '/console/users');",
      'interface Row { printerName: string }',
      "await api('POST', '/console/tokens', { expires_in_days: 30 });",
    ].join('\n');
    expect(recordsWrittenOut('sample.tsx', sample)).toEqual([
      'sample.tsx:1 created_at',
      'sample.tsx:2 last_error',
      'sample.tsx:3 setup_url',
    ]);
  });

  it('declares none in console/src or ui/', () => {
    expect(files).toContain('console/src/api.ts');
    const found = files.flatMap((file) =>
      recordsWrittenOut(file, readFileSync(join(root, file), 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
