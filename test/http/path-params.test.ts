import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../server/domain-errors.ts';
import { HttpError, httpErrorOf } from '../../server/http/errors.ts';
import { parseBySchema, parsePathParams } from '../../server/http/path-params.ts';
import type { AnyRoute } from '../../server/http/route.ts';
import { allRoutes } from '../../server/routes.ts';
import { maxId } from '../../shared/http.ts';

/** What a parse gave: the values, or the error's status and message. */
function outcome(parse: () => unknown): unknown {
  try {
    return { values: parse() };
  } catch (error) {
    const known = error instanceof HttpError ? error : httpErrorOf(error as DomainError);
    return { status: known.status, body: known.toBody() };
  }
}

const withParams = allRoutes.filter((route): route is AnyRoute & { params: object } =>
  Boolean(route.params),
);
const namesOf = (route: AnyRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** Path values as clients send them: ids, near-ids, and anything else. */
const pathValue = fc.oneof(
  fc.integer({ min: 1, max: maxId }).map(String),
  fc.constantFrom('0', '01', '-1', '1e0', '0x10', '1.0', ' 1', String(maxId + 1), '9'.repeat(20)),
  fc.constantFrom('1\u0000', '\u0000', 'C-1', 'abc', '\ud800'),
  fc.string({ maxLength: 12 }),
);

describe('path parameters', () => {
  it('answers every route as its schema does, for any values', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...withParams),
        fc.array(pathValue, { minLength: 5 }),
        (route, values) => {
          const raw = Object.fromEntries(namesOf(route).map((name, i) => [name, values[i]!]));
          expect(outcome(() => parsePathParams(route, raw))).toEqual(
            outcome(() => parseBySchema(route, raw)),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads plain ids as numbers, and refuses what names no record (404) or holds a NUL (422)', () => {
    const route = allRoutes.find((r) => r.method === 'GET' && r.path === '/customers/{customer}')!;
    expect(parsePathParams(route, { customer: '42' })).toEqual({ customer: 42 });
    expect(outcome(() => parsePathParams(route, { customer: '042' }))).toMatchObject({
      status: 404,
    });
    expect(outcome(() => parsePathParams(route, { customer: String(maxId + 1) }))).toMatchObject({
      status: 404,
    });
    expect(outcome(() => parsePathParams(route, { customer: '4\u00002' }))).toMatchObject({
      status: 422,
    });
  });
});
