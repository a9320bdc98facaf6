import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Router } from '../../server/http/router.ts';
import { allRoutes } from '../../server/routes.ts';

const router = new Router('/api/v1', allRoutes);

/** The route's path with each `{name}` given a value. */
const pathOf = (template: string, value: (name: string) => string) =>
  `/api/v1${template.replace(/\{(\w+)\}/g, (_whole, name: string) => value(name))}`;

/** What the router answered, told apart by what a test reads of it. */
const found = (method: string, path: string) => {
  const match = router.match(method, path);
  return match.kind === 'found' ? `${match.route.method} ${match.route.path}` : match.kind;
};

describe('the router (the real route table)', () => {
  it('finds every route by its own path, whatever segment values it is given', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_.~-]{1,12}$/), (value) => {
        for (const route of allRoutes) {
          const path = pathOf(route.path, () => value);
          const match = router.match(route.method, path);
          if (match.kind !== 'found') return false;
          // A fixed path of another route may win (`/customers/by-code/…` over
          // `/customers/{customer}`): then it is a route with more fixed segments.
          if (match.route !== route) {
            const fixed = (template: string) =>
              template.split('/').filter((part) => part && !part.startsWith('{')).length;
            expect(fixed(match.route.path)).toBeGreaterThan(fixed(route.path));
          }
        }
        return true;
      }),
    );
  });

  it('gives each parameter its segment, decoded', () => {
    const match = router.match('DELETE', '/api/v1/customers/7/relationships/related/caf%C3%A9');
    expect(match.kind === 'found' && match.params).toEqual({
      customer: '7',
      direction: 'related',
      relatedCustomer: 'café',
    });
  });

  it('finds no route for a path with a segment more or less, or a trailing slash', () => {
    expect(found('GET', '/api/v1/customers/5')).toBe('GET /customers/{customer}');
    expect(found('GET', '/api/v1/customers/5/')).toBe('not_found');
    expect(found('GET', '/api/v1/customers/5/x')).toBe('not_found');
    expect(found('GET', '/api/v1/customers/5/relationships/related')).toBe('not_found');
    expect(found('GET', '/api/v1/customers//relationships')).toBe('not_found');
    expect(found('GET', '/api/v1/nowhere/5')).toBe('not_found');
    expect(found('GET', '/customers/5')).toBe('not_found');
  });

  it('prefers a fixed segment over a parameter', () => {
    expect(found('GET', '/api/v1/customers/by-code/C-1')).toBe('GET /customers/by-code/{code}');
    expect(found('GET', '/api/v1/customers/12')).toBe('GET /customers/{customer}');
  });

  it('lists the methods of a known path that another method asked for (405)', () => {
    const match = router.match('DELETE', '/api/v1/customers/5');
    expect(match.kind).toBe('method_not_allowed');
    if (match.kind === 'method_not_allowed') {
      expect(match.allow).toEqual(
        expect.arrayContaining(['GET', 'HEAD', 'PUT', 'PATCH', 'OPTIONS']),
      );
      expect(match.allow).not.toContain('DELETE');
    }
  });
});
