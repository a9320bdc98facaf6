/**
 * The one registry of API errors: every error the server sends has a code, an HTTP status
 * and a default message here. `test/shared/errors.test.ts` keeps the table and product.md
 * in step.
 */
export const errorRegistry = {
  malformed_json: { status: 400, message: 'The request body is not valid JSON.' },
  credential_in_url: {
    status: 400,
    message: 'Credentials must not be sent in the URL; use the Authorization: Bearer header.',
  },
  bad_request: { status: 400, message: 'The request is not valid.' },
  unauthenticated: { status: 401, message: 'Unauthenticated.' },
  forbidden: { status: 403, message: 'This token lacks the required permission.' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: {
    status: 415,
    message: 'The request body must be sent as application/json.',
  },
  validation_failed: { status: 422, message: 'The given data was invalid.' },
  rate_limited: { status: 429, message: 'Too many requests.' },
  internal: { status: 500, message: 'Server error.' },
  unavailable: { status: 503, message: 'The server is shutting down; try again shortly.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorRegistry;
export const errorCodes = Object.keys(errorRegistry) as ErrorCode[];
