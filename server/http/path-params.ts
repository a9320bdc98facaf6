import { z } from 'zod';
import { idParam, maxId } from '../../shared/http.ts';
import { HttpError } from './errors.ts';
import type { AnyRoute } from './route.ts';
import { refuseUnstorableText } from './validation.ts';

/** Decimal digits, no leading zero: what `idParam` takes (shared/http.ts). */
const idDigits = /^[1-9][0-9]*$/;

/**
 * For each route whose path parameters are all ids (`idParam`), their names; null for the
 * others. Most paths are (`/customers/{customer}`), and checking an id needs no schema.
 */
const idNames = new WeakMap<AnyRoute, string[] | null>();

function idNamesOf(route: AnyRoute): string[] | null {
  let names = idNames.get(route);
  if (names === undefined) {
    const schema = route.params;
    const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, unknown>) : {};
    const keys = Object.keys(shape);
    names = keys.length > 0 && keys.every((key) => shape[key] === idParam) ? keys : null;
    idNames.set(route, names);
  }
  return names;
}

/**
 * The route's path parameters, parsed by its schema: a path that names no record of the
 * right shape is answered 404, as an unknown id is; a value with a NUL is refused 422 first
 * (the text rule), whatever the parameter's shape.
 *
 * Ids that are plain digits in range are read at once, as `idParam` would read them; any
 * other value goes through the schema, which gives its answer (test/http/path-params.test.ts
 * holds the two to the same answers).
 */
export function parsePathParams(route: AnyRoute, raw: Record<string, string>): unknown {
  const names = idNamesOf(route);
  if (names) {
    const ids: Record<string, number> = {};
    let plain = true;
    for (const name of names) {
      const value = raw[name];
      const id = value !== undefined && idDigits.test(value) ? Number(value) : maxId + 1;
      if (id > maxId) {
        plain = false;
        break;
      }
      ids[name] = id;
    }
    if (plain) return ids;
  }
  return parseBySchema(route, raw);
}

/** Every path parameter through the route's schema (and the text rule before it). */
export function parseBySchema(route: AnyRoute, raw: Record<string, string>): unknown {
  refuseUnstorableText(raw);
  const result = route.params!.safeParse(raw);
  if (!result.success) throw new HttpError('not_found', 'Record not found.');
  return result.data;
}
