import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from './import-graph.ts';

/**
 * The print queue and templates are two modules, not one: printing defines the port it
 * renders template jobs through (`server/printing/jobs/job-renderer.ts`), templates
 * implements it, and the wiring joins them. Printing imports nothing of templates (type-only
 * imports included), so templates may use the queue's contracts without a circle.
 */
describe('printing and templates', () => {
  const edges = [...importGraph(sourceFiles('server')).values()].flat();

  it('finds what it checks', () => {
    expect(
      edges.some(
        (edge) =>
          edge.from.startsWith('server/templates/') && edge.to.startsWith('server/printing/'),
      ),
    ).toBe(true);
  });

  it('server/printing/ imports nothing from server/templates/', () => {
    const offenders = edges.filter(
      (edge) => edge.from.startsWith('server/printing/') && edge.to.startsWith('server/templates/'),
    );
    expect(offenders.map((edge) => `${edge.from} → ${edge.to}`)).toEqual([]);
  });
});
