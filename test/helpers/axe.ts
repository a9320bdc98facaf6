import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is.
 * axe is put in through the DevTools protocol (`page.evaluate`), which a page's CSP does
 * not block, so the page is checked under its own strict policy.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Once per document: the console's pages change without loading a new one, and axe's
  // 650 kB need not be sent and parsed again for each check of the same document.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is a global the evaluated script defines.
    const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations as AxeViolation[];
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map((node) => ({ target: node.target })),
    }));
}
