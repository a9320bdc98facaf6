/**
 * What a domain operation (a query, a service) throws when it refuses, in the domain's own
 * words: no status, no request. Operations never import `server/http/`; the request
 * pipeline maps each kind to its status and registry code in one place (`httpErrorOf` in
 * `server/http/errors.ts`).
 */

/** Laravel's shape of field errors: each field's dotted key and its messages. */
export type FieldErrorMap = Record<string, string[]>;

/** The record asked for does not exist in the caller's company (or at all). */
export class NotFound extends Error {
  readonly kind = 'not_found' as const;
  /** What was looked for, as a person says it: `Product`, `Print job`. */
  readonly what: string;

  constructor(what: string) {
    super(`${what} not found.`);
    this.what = what;
  }
}

/** The record exists, but its state does not allow the operation (an accepted offer). */
export class Conflict extends Error {
  readonly kind = 'conflict' as const;
}

/**
 * Values that break a rule only the data can check (a code already taken, an id that
 * names no record), keyed by field like the schema's own refusals.
 */
export class InvalidFields extends Error {
  readonly kind = 'invalid_fields' as const;
  readonly errors: FieldErrorMap;

  constructor(errors: FieldErrorMap) {
    super(summaryOf(errors));
    this.errors = errors;
  }
}

/**
 * The database cannot be reached now (its connections were cut, it restarts, a connect
 * timed out): nothing the caller did wrong, and worth retrying shortly. Which driver errors
 * mean this is decided in one place, `isConnectionLoss` (server/storage/connection-loss.ts).
 */
/** The caller may not do this to this record (a token bound to another agent's job): 403. */
export class Forbidden extends Error {
  readonly kind = 'forbidden' as const;
}

export class Unavailable extends Error {
  readonly kind = 'unavailable' as const;

  constructor(options?: { cause?: unknown }) {
    super('The service is unavailable; try again shortly.', options);
  }
}

/**
 * The caller has too much work waiting already (a company's renders queued to their
 * limit): nothing is wrong with the request, and it may be sent again after
 * `retryAfterSeconds`.
 */
export class Busy extends Error {
  readonly kind = 'busy' as const;
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export type DomainError = NotFound | Conflict | Forbidden | InvalidFields | Unavailable | Busy;

export function isDomainError(error: unknown): error is DomainError {
  return (
    error instanceof NotFound ||
    error instanceof Conflict ||
    error instanceof Forbidden ||
    error instanceof InvalidFields ||
    error instanceof Unavailable ||
    error instanceof Busy
  );
}

export const invalidField = (field: string, message: string) =>
  new InvalidFields({ [field]: [message] });

/** The value of `key` names no record (of the company): Laravel's `exists` rule. */
export const unknownReference = (key: string) => invalidField(key, selectedInvalid(key));

/** Laravel's top-level message: the first error, then `(and N more errors)`. */
function summaryOf(errors: FieldErrorMap): string {
  const messages = Object.values(errors).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const more = messages.length - 1;
  return more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
}

/** Laravel names a top-level field with spaces (`customer id`), a nested one by its key. */
const attributeOf = (key: string) => (key.includes('.') ? key : key.replaceAll('_', ' '));

/** The one wording of a failed existence check, whichever record and field. */
const selectedInvalid = (key: string) => `The selected ${attributeOf(key)} is invalid.`;

/**
 * Field errors gathered over several checks, so that one answer names every bad field.
 * One message per field: a later refusal of the same field replaces the earlier one.
 */
export class FieldErrors {
  private readonly errors: FieldErrorMap = {};

  add(key: string, message: string): void {
    this.errors[key] = [message];
  }

  /** The value names no record (of the company): see `unknownReference`. */
  unknown(key: string): void {
    this.add(key, selectedInvalid(key));
  }

  /** The existence check of a list: each id, by position, that is not among `known`. */
  unknownIds(
    ids: readonly number[],
    known: ReadonlySet<number>,
    keyOf: (index: number) => string,
  ): void {
    ids.forEach((id, index) => {
      if (!known.has(id)) this.unknown(keyOf(index));
    });
  }

  /** Throws what was gathered as one `InvalidFields`; nothing when every check passed. */
  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw new InvalidFields({ ...this.errors });
  }
}
