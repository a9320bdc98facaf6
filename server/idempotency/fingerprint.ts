import { createHash } from 'node:crypto';

/**
 * JSON with every object's keys sorted, at every depth, and no spaces: two payloads that
 * differ only in key order or white space have the same text.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const fields = Object.keys(object)
      .sort()
      .filter((key) => object[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
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
  return createHash('sha256')
    .update(
      canonicalJson({ body: payload.body ?? null, params: payload.params, query: payload.query }),
    )
    .digest('hex');
}
