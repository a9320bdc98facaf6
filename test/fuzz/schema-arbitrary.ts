import fc from 'fast-check';
import { z } from 'zod';
import { maxId } from '../../shared/http.ts';

/**
 * Values that a route's own zod contract accepts, as fast-check generates them: the schema
 * goes through zod's JSON Schema output (the one the OpenAPI document is built from), so a
 * new field in a contract is fuzzed without a line here. Lists are kept short (3 items) and
 * strings within their bounds; what lies outside the contract is `mutations.ts`'s job.
 */

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
  not?: JsonSchema;
  multipleOf?: number;
  uniqueItems?: boolean;
}

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/**
 * Records that exist, so that generated references (`customer_id`, `product_code`) name real
 * rows now and then and the request gets past the "The selected … is invalid." checks.
 */
export interface Hints {
  ids: number[];
  codes: string[];
}

const noHints: Hints = { ids: [], codes: [] };

export function arbitraryOf(
  schema: JsonSchema,
  hints: Hints = noHints,
  name = '',
): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  // Choices beside a type are rules on it (`["*"]` alone or a list): the type is generated,
  // and what breaks a rule is left to the caller's validator.
  if (choices && schema.type === undefined) {
    return fc.oneof(...choices.map((choice) => arbitraryOf(choice, hints, name)));
  }
  // An object's allOf holds rules between its fields (either-or), read by objectOf.
  if (schema.allOf?.length && !schema.properties) {
    return arbitraryOf(Object.assign({}, ...schema.allOf), hints, name);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' && schema.maximum === maxId && hints.ids.length > 0) {
    return fc.oneof(fc.constantFrom(...hints.ids), fc.integer({ min: 1, max: maxId }));
  }
  if (type === 'string' && /code$/.test(name) && hints.codes.length > 0) {
    return fc.oneof(fc.constantFrom(...hints.codes), stringOf(schema));
  }
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER),
        max: Math.min(schema.maximum ?? 1000, Number.MAX_SAFE_INTEGER),
      });
    case 'number': {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? -1000;
      const max = schema.maximum ?? 1000;
      // Money and quantities: at most 2 decimals keeps most of them valid.
      return fc
        .integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) })
        .map((cents) => cents / 100)
        .filter((n) => schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum);
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ? arbitraryOf(schema.items, hints, name) : fc.anything();
      const lengths = {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, Math.max(schema.minItems ?? 0, 3)),
      };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...lengths, selector: (item) => JSON.stringify(item) })
        : fc.array(items, lengths);
    }
    case 'object':
      return objectOf(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * The either-or rules of an object, as the OpenAPI document states them in its `allOf`:
 * `oneOf: [{required: [a]}, {required: [b]}]` (exactly one) and `not: {required: [a, b]}`
 * (at most one).
 */
function pairsOf(schema: JsonSchema): { exactlyOne: string[][]; atMostOne: string[][] } {
  const exactlyOne: string[][] = [];
  const atMostOne: string[][] = [];
  for (const rule of schema.allOf ?? []) {
    const keys = rule.oneOf?.map((choice) => choice.required?.[0]);
    if (keys?.length === 2 && keys.every((key) => key !== undefined)) {
      exactlyOne.push(keys as string[]);
    }
    if (rule.not?.required?.length === 2) atMostOne.push(rule.not.required);
  }
  return { exactlyOne, atMostOne };
}

function objectOf(schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const { exactlyOne, atMostOne } = pairsOf(schema);
  for (const pair of exactlyOne) for (const key of pair) required.add(key);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(properties)) {
    record[key] = arbitraryOf(property, hints, key);
  }
  const values = fc.record(record, {
    requiredKeys: Object.keys(properties).filter((key) => required.has(key)),
  });
  const pairs = [...exactlyOne, ...atMostOne];
  if (pairs.length === 0) return values;
  // Exactly one: both are generated, one is dropped. At most one: one, the other or both.
  return fc
    .tuple(values, fc.array(fc.nat(2), { minLength: pairs.length, maxLength: pairs.length }))
    .map(([value, drops]) => {
      const object = { ...(value as Record<string, unknown>) };
      pairs.forEach(([first, second], index) => {
        const drop = index < exactlyOne.length ? drops[index]! % 2 : drops[index]!;
        if (drop !== 1) delete object[first!];
        if (drop !== 0) delete object[second!];
      });
      return object;
    });
}

/**
 * An https URL, as `fc.webUrl()` makes by default: a host name and a path of plain
 * segments. Not `fc.webUrl()`: its percent-encoded path costs each worker ~0.8 s of CPU to
 * build (the mapping of every code point); the mutations put the odd characters in.
 */
const urlSegment = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-._~'),
  minLength: 1,
  maxLength: 8,
});
const httpsUrl = fc
  .tuple(fc.webAuthority(), fc.array(urlSegment, { maxLength: 3 }))
  .map(([authority, segments]) => `https://${authority}/${segments.join('/')}`);

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 80);
  switch (schema.format) {
    case 'email':
      return fc.emailAddress().filter((email) => email.length <= maxLength);
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date':
      return dateArbitrary.map((date) => date.toISOString().slice(0, 10));
    case 'date-time':
      return dateArbitrary.map((date) => date.toISOString());
    case 'uri':
      return httpsUrl.filter((url) => url.length <= maxLength);
  }
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? 4096));
  }
  return fc
    .string({ minLength, maxLength, unit: 'grapheme' })
    .map((text) => (text.trim().length >= minLength ? text : `${text}${'x'.repeat(minLength)}`));
}

const dateArbitrary = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2099-12-31T00:00:00Z'),
  noInvalidDate: true,
});
