/**
 * What idempotency offers the HTTP core: a request's fingerprint, and the service that keeps
 * and replays stored answers. Idempotency owns the idempotency keys.
 */
export { fingerprintOf, type RequestPayload } from './fingerprint.ts';
export type { StoredAnswer } from './records.ts';
export type { IdempotencyService } from './service.ts';
export type { KeyScope } from './stored-answers.ts';
