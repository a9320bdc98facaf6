import type { ConsoleSessionRecord } from '../../shared/console.ts';

/**
 * Calls the server's API with the session cookie (same origin: the browser sends it). The
 * records' types come from the contracts in shared/ (type-only imports: zod stays out of the
 * bundle).
 */

export class ApiError extends Error {
  readonly status: number;
  readonly errors: Record<string, string[]> | undefined;

  constructor(status: number, message: string, errors?: Record<string, string[]>) {
    super(message);
    this.status = status;
    this.errors = errors;
  }
}

type Unauthenticated = () => void;
let onUnauthenticated: Unauthenticated = () => {};

/** What the app does when the session has ended (signed out elsewhere, user removed). */
export function whenSignedOut(handler: Unauthenticated): void {
  onUnauthenticated = handler;
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/api/v1${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    if (response.status === 401 && path !== '/console/session') onUnauthenticated();
    throw new ApiError(
      response.status,
      answer.message ?? `Error ${response.status}`,
      answer.errors,
    );
  }
  return answer as T;
}

/** What went wrong, in the server's words (each field's message where it named fields). */
export function failureMessage(failure: unknown): string {
  if (failure instanceof ApiError && failure.errors) {
    return Object.values(failure.errors).flat().join(' ');
  }
  return failure instanceof ApiError ? failure.message : String(failure);
}

export type { Page } from '../../shared/http.ts';

/** Who is signed in: the session record the server answers (`GET /console/session`). */
export type Session = ConsoleSessionRecord;

export const can = (session: Session, permission: string) =>
  (session.permissions as readonly string[]).includes(permission) ||
  (session.abilities as readonly string[]).includes(permission);
