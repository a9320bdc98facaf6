import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../console/build.ts';

/**
 * What a browser downloads to open the console (app.js, app.css, index.html), gzipped,
 * stays within 150 KB (docs/console.md, "Building the console"); built here into a
 * scratch folder, as `npm run console:build` builds it.
 */
const budget = 150 * 1024;

describe('the console bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-console-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is within 150 KB gzipped, and carries its icon', async () => {
    const built = await buildConsole(dir);
    expect(built.gzipped).toBeLessThanOrEqual(budget);
    expect([...readFileSync(join(dir, 'favicon.ico')).subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  }, 60_000);
});
