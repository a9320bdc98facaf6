/** Calls the server's API with the session cookie (same origin: the browser sends it). */

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

export interface Page<T> {
  data: T[];
  meta: { current_page: number; last_page: number; total: number; per_page: number };
}

export interface Session {
  user: { id: number; email: string; role: 'owner' | 'manager' | 'staff' };
  company: { id: number; name: string };
  permissions: string[];
  abilities: string[];
  /** What this person may hand to a token (server/console/roles.ts decides). */
  grantable: string[];
}

export const can = (session: Session, permission: string) =>
  session.permissions.includes(permission) || session.abilities.includes(permission);
