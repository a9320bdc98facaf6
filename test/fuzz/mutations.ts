import fc from 'fast-check';

/**
 * What a clumsy client or an attacker sends instead of what the contract asks: wrong types,
 * numbers past every bound, NUL, lone surrogates, deep nesting, long strings, extra keys.
 * Each mutation replaces one spot of a valid value, so the rest still gets past the
 * validator and the odd value reaches as deep as it can.
 */

/**
 * A value nested `depth` levels deep, as a marker string that `expandDeepValues` turns into
 * the nesting once the body is JSON text: 100,000 levels of objects in memory would
 * overflow the stack of every recursive walk on the test's side (JSON.stringify, the
 * mutations' own clone) before the server ever saw them.
 */
const deep = (depth: number): string => `\u0001deep:${depth}\u0001`;

/** The body's JSON text with each deep marker replaced by its nesting (`{"a":[{"a":[…`). */
export function expandDeepValues(text: string): string {
  return text.replace(/"\\u0001deep:(\d+)\\u0001"/g, (_marker, depth: string) => {
    const pairs = Math.floor(Number(depth) / 2);
    return `${'{"a":['.repeat(pairs)}"deep"${']}'.repeat(pairs)}`;
  });
}

/** Numbers around every bound the server or a database has. */
const numbers = [
  0,
  -1,
  0.5,
  1.005,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 63,
  -(2 ** 53),
  1e308,
  -1e308,
  5e-324,
  999_999_999_999.99,
  1_000_000_000_000,
  999_999_999.9999,
];

/** Text no database stores alike, or that means something to SQL, LIKE, paths or JSON. */
const texts = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ud83d\ude00',
  '%',
  '_',
  '\\',
  '%_\\',
  "'; drop table customers; --",
  '../../etc/passwd',
  '\u202e\u0301',
  '\r\n\t',
  '1e3',
  '0x10',
  '-0',
  'NaN',
  'null',
  '__proto__',
];

/**
 * Any code point, lone surrogate halves included: what fast-check's `unit: 'binary'` gives,
 * without the ~0.8 s of CPU its first use costs each worker (it maps all 1.1 million code
 * points back to their indexes, to shrink the strings it seeds with `__proto__` and the like;
 * `texts` above has those).
 */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .map((code) => String.fromCodePoint(code));

export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...numbers, ...texts, null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([], {}, [null], { '': null }) },
  { weight: 1, arbitrary: fc.string({ unit: anyCodePoint, maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 256, max: 20_000 }), fc.constantFrom('x', 'é', '\u0000', '😀'))
      .map(([length, unit]) => unit.repeat(length)),
  },
  {
    weight: 1,
    // Past the body's depth limit (64) at every size, up to 100,000 levels (in ~700 KB).
    arbitrary: fc
      .oneof(fc.integer({ min: 10, max: 1000 }), fc.constantFrom(64, 66, 5000, 100_000))
      .map(deep),
  },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const extraKeys = ['__proto__', 'constructor', 'prototype', 'company_id', 'id', '', 'é\u0000'];

type Path = (string | number)[];

/** The spots of a value, down to the depth contracts have (not into a deep mutation). */
function pathsOf(value: unknown, path: Path = [], found: Path[] = []): Path[] {
  found.push(path);
  if (path.length >= 6) return found;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) pathsOf(item, [...path, index], found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], found);
  }
  return found;
}

function clone(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  let parent = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path.at(-1)!] = value;
  return root;
}

function getAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path) value = (value as Record<string | number, unknown>)[key];
  return value;
}

type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'extra'; at: number; key: string; value: unknown }
  | { kind: 'drop'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat(),
      value: nastyValue,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('extra' as const),
      at: fc.nat(),
      key: fc.oneof(fc.constantFrom(...extraKeys), fc.string({ maxLength: 10 })),
      value: nastyValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
);

function apply(value: unknown, change: Mutation): unknown {
  const paths = pathsOf(value);
  const path = paths[change.at % paths.length]!;
  if (change.kind === 'replace') return setAt(value, path, clone(change.value));
  const target = getAt(value, path);
  if (change.kind === 'extra') {
    if (target === null || typeof target !== 'object' || Array.isArray(target)) return value;
    // JSON.parse makes `__proto__` an own key, as a client's JSON does.
    const extra = JSON.parse(
      `{${JSON.stringify(change.key)}: ${JSON.stringify(change.value ?? null)}}`,
    );
    return setAt(value, path, { ...target, ...extra });
  }
  if (path.length === 0) return undefined;
  const parent = getAt(value, path.slice(0, -1));
  if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
  else delete (parent as Record<string, unknown>)[path.at(-1) as string];
  return value;
}

/** A valid value as it is (a third of the time), or with one to three mutations. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([value, changes]) =>
          changes.reduce((current, change) => apply(current, change), clone(value)),
        ),
    },
  );
}

/**
 * A query string from query values: valid ones percent-encoded, and raw pieces no encoder
 * makes (a lone surrogate's UTF-8, `%FF`, a bare `%`, `key[]=`).
 */
export const nastyQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%FF',
    '%',
    '%%',
    '%2',
    '+',
    '%2B',
    'x'.repeat(5000),
  ),
  fc.constantFrom(...numbers.map(String), '-1', '1e999', 'NaN', 'Infinity', '0x10', '1.5', ''),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
);

export function queryString(values: Record<string, unknown>, raw: [string, string][]): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  for (const [key, value] of raw) pairs.push(`${key}=${value}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** Path values: ids around every bound, broken escapes, NUL, and text. */
export function pathValue(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '01',
        '1.0',
        '1e0',
        '0x10',
        ' 1',
        '2147483647',
        '2147483648',
        '4294967296',
        '9007199254740991',
        '9007199254740993',
        '99999999999999999999999',
        '%00',
        '1%00',
        '%FF',
        '%ED%A0%80',
        '%',
        '%2F',
        '..',
        'null',
        '%E2%80%AE',
        'x'.repeat(3000),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
        .map(encodeURIComponent),
    },
  );
}
