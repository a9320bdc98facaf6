import type { AnyRoute } from './route.ts';

/**
 * What the log may show of a request's path. Path values a route marks as personal
 * (`personalParams`: a customer's tax id or code) become `***`; on a path that no route
 * matched, any segment that looks personal does (`looksPersonal`: a tax id or an e-mail
 * address typed into a wrong URL), since nothing says what it is. The query string is never
 * logged at all (docs/security.md).
 */
export function loggedPath(pathname: string, prefix: string, route: AnyRoute | undefined): string {
  if (!route) {
    return pathname
      .split('/')
      .map((segment) => (looksPersonal(segment) ? masked : segment))
      .join('/');
  }
  const personal = route.personalParams;
  if (!personal) return pathname;
  // The route's pattern matches one path segment per template segment (docs/http.md).
  const template = `${prefix}${route.path}`.split('/');
  return pathname
    .split('/')
    .map((segment, index) => {
      const name = /^\{(\w+)\}$/.exec(template[index] ?? '')?.[1];
      return name && personal.includes(name) ? masked : segment;
    })
    .join('/');
}

const masked = '***';

/**
 * 8 or more digits (a CPF or CNPJ, a phone number, however punctuated), or an `@` as it is
 * or percent-encoded (`%40`): an e-mail address. Whatever the segment holds, it is masked
 * whole, never just its personal part.
 */
function looksPersonal(segment: string): boolean {
  return digitCount(segment) >= 8 || segment.includes('@') || /%40/i.test(segment);
}

function digitCount(segment: string): number {
  let digits = 0;
  for (let index = 0; index < segment.length; index++) {
    const code = segment.charCodeAt(index);
    if (code >= 48 && code <= 57) digits++;
  }
  return digits;
}

/**
 * An unexpected error as the log keeps it: what IT needs to find the fault (kind, message,
 * stack, the database's error code and the table or constraint), without the values a driver
 * may quote (PostgreSQL's `detail`: `Key (taxvat)=(…) already exists`).
 */
export function loggableError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  // Same prototype, so the log still names the error's class (`DatabaseError`).
  const kept = Object.create(Object.getPrototypeOf(error)) as Record<string, unknown>;
  kept.message = error.message;
  kept.stack = error.stack;
  const fields = error as unknown as Record<string, unknown>;
  for (const key of ['code', 'table', 'column', 'constraint', 'routine']) {
    if (fields[key] !== undefined) kept[key] = fields[key];
  }
  return kept;
}
