import { describe, expect, it } from 'vitest';
import { eventLoopRenderLimitMs, renderLiquid } from '../../server/templates/liquid.ts';

/**
 * The limits of a render are liquidjs's own (`renderLimit`, `memoryLimit`: options of its
 * engine, server/templates/liquid.ts); these tests pin what the server relies on of them, so
 * that an upgrade of liquidjs that changes it fails here, not in a hung server.
 */
describe('Liquid render limits (liquidjs options)', () => {
  /** The refusal's words, or undefined when it rendered. */
  function refusalOf(source: string, data: object = {}): string | undefined {
    try {
      renderLiquid('receipt', source, data);
      return undefined;
    } catch (error) {
      return (error as { errors?: Record<string, string[]> }).errors?.data?.[0];
    }
  }

  it('nested loops past the render limit are refused, in the words people read', () => {
    const source = '{% for i in (1..n) %}{% for j in (1..n) %}x{% endfor %}{% endfor %}';
    expect(refusalOf(source, { n: 10_000 })).toBe(
      'The template could not be rendered with this data: it passed its limit of 1000 ms.',
    );
  });

  it('a render on the event loop (a template saved, a job created) stops at a quarter of that', () => {
    const source = '{% for i in (1..n) %}{% for j in (1..n) %}x{% endfor %}{% endfor %}';
    let said: string | undefined;
    try {
      renderLiquid('receipt', source, { n: 10_000 }, undefined, {}, eventLoopRenderLimitMs);
    } catch (error) {
      said = (error as { errors?: Record<string, string[]> }).errors?.data?.[0];
    }
    expect(said).toBe(
      'The template could not be rendered with this data: it passed its limit of 250 ms.',
    );
  });

  it('a range past the memory limit is refused before it is looped over', () => {
    expect(refusalOf('{% for i in (1..n) %}x{% endfor %}', { n: 1_000_000_000 })).toBe(
      'The template could not be rendered with this data: memory alloc limit exceeded.',
    );
  });

  it('a template within the limits renders', () => {
    expect(refusalOf('{% for i in (1..3) %}{{ i }}{% endfor %}')).toBeUndefined();
  });
});
