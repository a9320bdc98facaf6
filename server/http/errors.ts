import { type ErrorCode, errorRegistry } from '../../shared/errors.ts';
import type { ErrorBody } from '../../shared/http.ts';

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

export const notFound = (what = 'Record') => new HttpError('not_found', `${what} not found.`);

export const conflict = (message: string) => new HttpError('conflict', message);

/** A 422 on one or more fields, with Laravel's message shape. */
export function invalid(errors: Record<string, string[]>): HttpError {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? errorRegistry.validation_failed.message;
  const more = messages.length - 1;
  const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
  return new HttpError('validation_failed', message, { errors });
}

export const invalidField = (field: string, message: string) => invalid({ [field]: [message] });
