import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, sourceFiles } from './import-graph.ts';

/**
 * No file of server/, shared/ or agent/ imports in a circle, type-only imports included:
 * a reader follows an import both ways, and a circle means two files that cannot be read,
 * tested or moved one without the other.
 */
describe('import circles', () => {
  const graph = importGraph(['server', 'shared', 'agent', 'cli'].flatMap(sourceFiles));

  it('finds what it checks', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('server/app.ts')?.length).toBeGreaterThan(5);
  });

  it('there are none', () => {
    expect(importCircles(graph).map((circle) => circle.join(' → '))).toEqual([]);
  });
});
