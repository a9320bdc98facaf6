/** One entry of the error registry. */
export interface ErrorEntry {
  status: number;
  /** The message when the thrower gives none. */
  message: string;
  /**
   * The OpenAPI response component that documents this entry's status for every route that
   * may answer it: one entry per status carries it (its code is the component's example).
   */
  response?: { name: string; description: string };
}

/**
 * The one registry of API errors: every error the server sends has a code, an HTTP status
 * and a default message here, and the OpenAPI document's error responses are built from it.
 * `test/shared/error-registry.test.ts` keeps it in step with the server (every code raised
 * somewhere, nothing raised that is not here) and with the table in docs/http.md.
 */
export const errorRegistry = {
  malformed_json: {
    status: 400,
    message: 'The request body is not valid JSON.',
    response: { name: 'BadRequest', description: 'Malformed JSON, or a credential in the URL.' },
  },
  credential_in_url: {
    status: 400,
    message: 'Credentials must not be sent in the URL; use the Authorization: Bearer header.',
  },
  bad_request: { status: 400, message: 'The request is not valid.' },
  unauthenticated: {
    status: 401,
    message: 'Unauthenticated.',
    response: {
      name: 'Unauthenticated',
      description: 'Missing, unknown, expired or revoked token.',
    },
  },
  forbidden: {
    status: 403,
    message: 'This token lacks the required permission.',
    response: { name: 'Forbidden', description: "The token lacks the route's permission." },
  },
  not_found: {
    status: 404,
    message: 'Not found.',
    response: { name: 'NotFound', description: 'No such record in this company.' },
  },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  request_timeout: {
    status: 408,
    message: 'The request did not arrive in time; send the headers and the body without pausing.',
    response: {
      name: 'RequestTimeout',
      description:
        'The body did not arrive whole within the deadline of a route that takes no token; the connection closes.',
    },
  },
  conflict: {
    status: 409,
    message: 'The request conflicts with the current state.',
    response: { name: 'Conflict', description: 'The record is not in a state that allows this.' },
  },
  idempotency_key_in_flight: {
    status: 409,
    message:
      'A request with this Idempotency-Key is still being processed; retry after it has finished.',
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is too large.',
    response: { name: 'PayloadTooLarge', description: 'The body is over the size limit.' },
  },
  unsupported_media_type: {
    status: 415,
    message: 'The request body must be sent as application/json.',
    response: { name: 'UnsupportedMediaType', description: 'The body is not application/json.' },
  },
  validation_failed: {
    status: 422,
    message: 'The given data was invalid.',
    response: {
      name: 'ValidationFailed',
      description: 'Validation failed; `errors` maps fields to messages.',
    },
  },
  idempotency_key_reused: {
    status: 422,
    message:
      'This Idempotency-Key was already used with another request; send a new key for a new request.',
  },
  rate_limited: {
    status: 429,
    message: 'Too many requests.',
    response: {
      name: 'RateLimited',
      description: 'Over the rate limit for this token; see Retry-After.',
    },
  },
  headers_too_large: { status: 431, message: 'The request headers are too large.' },
  not_ready: {
    status: 503,
    message: 'This instance is not ready to serve requests; try again shortly.',
  },
  internal: {
    status: 500,
    message: 'Server error.',
    response: {
      name: 'ServerError',
      description: 'Unexpected fault; the body never carries details.',
    },
  },
  unavailable: {
    status: 503,
    message: 'The service is unavailable; try again shortly.',
    response: {
      name: 'Unavailable',
      description:
        'The database was out of reach (an outage or a failover). Retry after `Retry-After` seconds; retry a write with the same Idempotency-Key, since a connection lost at its commit leaves it unknown whether it committed.',
    },
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof errorRegistry;
export const errorCodes = Object.keys(errorRegistry) as ErrorCode[];
