import { z } from 'zod';
import { InvalidFields } from '../domain-errors.ts';
import { HttpError } from './errors.ts';
import { attributeName, parseOrThrow } from './validation.ts';

/** Query parameters that carry credentials, which never belong in a URL (docs/reference.md). */
const credentialParameters = new Set(['access_token', 'token', 'api_token', 'api_key']);

/** `Access_Token=` and `token[]=` carry a credential just as well as `access_token=`. */
const isCredentialParameter = (key: string) =>
  credentialParameters.has(key.replace(/\[\]$/, '').toLowerCase());

/**
 * The query string as the route's schema reads it: `key=value` pairs decoded (`+` is a
 * space), `key[]=` and repeated keys as arrays. A credential among the keys is refused
 * first (400), whatever else the query holds; `notCredentials` are the names that, on the
 * route found, are not credentials (its `queryNotCredentials`), matched exactly.
 */
export function parseQuery(
  search: string,
  notCredentials: readonly string[] = [],
): Record<string, string | string[]> {
  // No prototype: `__proto__=…` is a parameter like any other (and refused as one), not a
  // write to the object's prototype that no key would show.
  const values: Record<string, string | string[]> = Object.create(null);
  const pairs = search.startsWith('?') ? search.slice(1) : search;
  if (!pairs) return values;
  const decoded: [string, string][] = [];
  for (const pair of pairs.split('&')) {
    if (!pair) continue;
    const equals = pair.indexOf('=');
    const key = decodeComponent(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decodeComponent(pair.slice(equals + 1));
    decoded.push([key, value]);
  }
  const refused = ([key]: [string, string]) =>
    isCredentialParameter(key) && !notCredentials.includes(key);
  if (decoded.some(refused)) throw new HttpError('credential_in_url');
  for (const [key, value] of decoded) {
    const list = key.endsWith('[]');
    const name = list ? key.slice(0, -2) : key;
    const existing = values[name];
    if (existing === undefined) values[name] = list ? [value] : value;
    else values[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return values;
}

/**
 * A lone `%` stays as it is (`100%`), as browsers' URLSearchParams leave it; escapes that
 * decode to bytes that are not UTF-8 (`%FF`, an encoded surrogate) are the client's bug,
 * answered as a broken path is (400), rather than read as U+FFFD and searched for.
 */
function decodeComponent(raw: string): string {
  const spaced = raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    throw new HttpError('bad_request', 'The query string is not valid percent-encoded UTF-8.');
  }
}

/** Each route's query schema with its declared parameters as a closed set, made once. */
const closedSchemas = new WeakMap<z.ZodObject, z.ZodType>();

/**
 * The query's values as the route's schema reads them, a parameter it does not declare
 * refused (422, "The … field is prohibited.", on that parameter) as a body field of a closed
 * set is: a misspelt filter (`?stauts=failed`) would otherwise answer a list that looks
 * filtered and is not. A route that declares no query takes no parameter at all.
 */
export function parseRouteQuery(
  schema: z.ZodType | undefined,
  query: Record<string, string | string[]>,
): unknown {
  if (schema === undefined) {
    const names = Object.keys(query);
    if (names.length === 0) return {};
    const prohibited = (name: string) => `The ${attributeName([name])} field is prohibited.`;
    throw new InvalidFields(Object.fromEntries(names.map((name) => [name, [prohibited(name)]])));
  }
  // A query is a set of named parameters: an object schema, whose keys are the closed set.
  if (!(schema instanceof z.ZodObject)) throw new Error('A query schema must be a zod object.');
  let closed = closedSchemas.get(schema);
  if (!closed) {
    closed = schema.strict();
    closedSchemas.set(schema, closed);
  }
  return parseOrThrow(closed, query);
}
