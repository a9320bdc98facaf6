import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintOf } from '../../server/idempotency/fingerprint.ts';

/** The payload a key is bound to (docs/http.md): its JSON, whatever the key order. */
describe('canonical JSON and the fingerprint', () => {
  it('sorts keys at every depth and drops white space', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson(JSON.parse('{ "x" : "é\\u00e9", "a" : true }'))).toBe(
      '{"a":true,"x":"éé"}',
    );
  });

  it('keeps the order of arrays, and what is absent is not null', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson({ a: null, b: 1 })).toBe('{"a":null,"b":1}');
  });

  it('binds body, path parameters and query', () => {
    const base = { params: { job: '7' }, query: {}, body: { copies: 1, route: 'r' } };
    const same = fingerprintOf({ ...base, body: { route: 'r', copies: 1 } });
    expect(fingerprintOf(base)).toBe(same);
    expect(fingerprintOf(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintOf({ ...base, params: { job: '8' } })).not.toBe(same);
    expect(fingerprintOf({ ...base, query: { page: '2' } })).not.toBe(same);
    expect(fingerprintOf({ ...base, body: { route: 'r', copies: 2 } })).not.toBe(same);
    expect(fingerprintOf({ ...base, body: undefined })).toBe(
      fingerprintOf({ ...base, body: null }),
    );
  });
});

describe('a deep payload', () => {
  const nest = (depth: number, unordered = false) => {
    let value: unknown = 'leaf';
    for (let level = 0; level < depth; level++) {
      value = level % 2 ? [value, null] : unordered ? { b: 1, a: value } : { a: value, b: 1 };
    }
    return value;
  };

  it('is fingerprinted without recursion, 100,000 levels down', () => {
    const text = canonicalJson(nest(100_000, true));
    expect(text.startsWith('[{"a":[{"a":')).toBe(true);
    expect(text).toBe(canonicalJson(nest(100_000)));
    const body = nest(100_000, true);
    expect(fingerprintOf({ params: {}, query: {}, body })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is written as JSON.stringify writes it, on either side of the switch to the loop', () => {
    for (const depth of [255, 256, 257, 300]) {
      expect(canonicalJson(nest(depth, true))).toBe(JSON.stringify(nest(depth)));
    }
  });
});
