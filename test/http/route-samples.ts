import { z } from 'zod';
import type { AnyRoute } from '../../server/http/route.ts';

/** How a test names a route of the table in its messages: `GET /products/{product}`. */
export const label = (route: AnyRoute) => `${route.method} ${route.path}`;

/**
 * The route's path with a value each path parameter's schema takes: the first option of an
 * enum, else 1 for ids, a word, a release channel or a uuid, whichever the schema accepts.
 */
export function concretePath(route: AnyRoute): string {
  const shape: Record<string, z.ZodType> =
    route.params instanceof z.ZodObject ? (route.params.shape as Record<string, z.ZodType>) : {};
  return route.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const schema = shape[name];
    const candidates = ['1', 'parent', 'a', 'stable', '00000000-0000-4000-8000-000000000000'];
    if (schema instanceof z.ZodEnum) candidates.unshift(String(schema.options[0]));
    const value = candidates.find((candidate) => !schema || schema.safeParse(candidate).success);
    if (value === undefined) throw new Error(`no sample value for {${name}} of ${label(route)}`);
    return value;
  });
}
