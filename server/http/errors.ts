import { type ErrorCode, errorRegistry } from '../../shared/errors.ts';
import type { ErrorBody } from '../../shared/http.ts';
import type { DomainError } from '../domain-errors.ts';

/** An error meant for the client: its code fixes the status; the message is for a person. */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: Record<string, string[]> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { errors?: Record<string, string[]>; headers?: Record<string, string> } = {},
  ) {
    super(message ?? errorRegistry[code].message);
    this.code = code;
    this.status = errorRegistry[code].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { success: false, message: this.message, code: this.code };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

/**
 * What a 503 asks the client to wait: the pool reconnects on the next query, so the only
 * wait is the database's own return (a restart takes a few seconds).
 */
export const unavailableRetrySeconds = 2;

/**
 * The one place where a refusal of a domain operation (or of the request schemas, which
 * refuse fields the same way) becomes an answer: its registry code, hence its status.
 */
export function httpErrorOf(error: DomainError): HttpError {
  switch (error.kind) {
    case 'not_found':
      return new HttpError('not_found', error.message);
    case 'conflict':
      return new HttpError('conflict', error.message);
    case 'forbidden':
      return new HttpError('forbidden', error.message);
    case 'invalid_fields':
      return new HttpError('validation_failed', error.message, { errors: error.errors });
    case 'unavailable':
      return new HttpError('unavailable', error.message, {
        headers: { 'retry-after': String(unavailableRetrySeconds) },
      });
    case 'busy':
      return new HttpError('rate_limited', error.message, {
        headers: { 'retry-after': String(error.retryAfterSeconds) },
      });
  }
}
