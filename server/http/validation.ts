import type { z } from 'zod';
import { InvalidFields } from '../domain-errors.ts';

type Issue = z.core.$ZodIssue & { input?: unknown };

/**
 * Turns zod's issues into Laravel's validation messages ("The name field is required."),
 * keyed by dotted paths (`addresses.0.zipcode`), as integrators expect (docs/reference.md).
 * Schemas with a custom rule write `:attribute` where the field's name goes.
 */
export function validationErrors(issues: readonly Issue[]): Record<string, string[]> {
  // No prototype: a field the client named `constructor` or `__proto__` is a key like any other.
  const errors: Record<string, string[]> = Object.create(null);
  const add = (key: string, message: string) => {
    const list = errors[key] ?? [];
    if (!list.includes(message)) list.push(message);
    errors[key] = list;
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        add(fieldKey(path), `The ${attributeName(path)} field is prohibited.`);
      }
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.path.length > 0) {
      add(fieldKey(issue.path), `The ${attributeName(issue.path)} field is invalid.`);
      continue;
    }
    add(fieldKey(issue.path), messageFor(issue));
  }
  return errors;
}

export function fieldKey(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'body' : path.map(String).join('.');
}

/** Laravel shows `credit_limit` as "credit limit" and nested keys as they are. */
export function attributeName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'body';
  if (path.length === 1) return String(path[0]).replaceAll('_', ' ');
  return path.map(String).join('.');
}

function messageFor(issue: Issue): string {
  const field = attributeName(issue.path);
  const the = `The ${field} field`;
  // Laravel turns '' into null (ConvertEmptyStringsToNull) and reports an absent value as
  // required, whichever rule caught it: a missing enum is not "The selected type is invalid."
  const absent = issue.input === undefined || issue.input === null || issue.input === '';
  if (absent && issue.code !== 'custom') return `${the} is required.`;
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined || issue.input === null) return `${the} is required.`;
      return `${the} must be ${typeWords(issue.expected)}.`;
    }
    case 'too_small': {
      const n = Number(issue.minimum);
      if (issue.origin === 'string') {
        if (issue.exact) return `${the} must be ${n} characters.`;
        if (n === 1) return `${the} is required.`;
        return `${the} must be at least ${n} characters.`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return `${the} must have at least ${n} item${n === 1 ? '' : 's'}.`;
      }
      return issue.inclusive
        ? `${the} must be at least ${n}.`
        : `${the} must be greater than ${n}.`;
    }
    case 'too_big': {
      const n = Number(issue.maximum);
      if (issue.origin === 'string') {
        if (issue.exact) return `${the} must be ${n} characters.`;
        return `${the} must not be greater than ${n} characters.`;
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return `${the} must not have more than ${n} items.`;
      }
      return issue.inclusive
        ? `${the} must not be greater than ${n}.`
        : `${the} must be less than ${n}.`;
    }
    case 'invalid_format': {
      // A schema's own words for the format (the e-mail's 64-character local part) first.
      if (issue.message.includes(':attribute'))
        return issue.message.replaceAll(':attribute', field);
      switch (issue.format) {
        case 'email':
          return `${the} must be a valid email address.`;
        case 'url':
          return `${the} must be a valid URL.`;
        case 'uuid':
          return `${the} must be a valid UUID.`;
        case 'datetime':
        case 'date':
          return `${the} must be a valid date.`;
        default:
          return issue.message.includes(':attribute')
            ? issue.message.replaceAll(':attribute', field)
            : `${the} format is invalid.`;
      }
    }
    case 'invalid_value':
      return `The selected ${field} is invalid.`;
    case 'not_multiple_of':
      return `${the} must be a multiple of ${issue.divisor}.`;
    case 'custom':
      return issue.message.replaceAll(':attribute', field);
    default:
      return `${the} is invalid.`;
  }
}

function typeWords(expected: string): string {
  switch (expected) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'int':
    case 'bigint':
      return 'an integer';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'an array';
    case 'object':
    case 'record':
      return 'an object';
    default:
      return `of type ${expected}`;
  }
}

/**
 * Parses with the schema or throws the fields that are wrong and why: the same refusal as a
 * domain operation's (`InvalidFields`), so one mapping answers both with 422. What passes
 * the schema is then held to the text rule (`refuseUnstorableText`).
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new InvalidFields(validationErrors(result.error.issues as Issue[]));
  refuseUnstorableText(result.data);
  return result.data;
}

/**
 * The one text rule, for every string a route takes (path values, query values, body
 * fields, at any depth): no NUL character and no unpaired surrogate. PostgreSQL refuses NUL
 * in text while SQLite stores it, and each driver writes a lone surrogate as U+FFFD, so
 * without the rule the two databases would answer the same request differently (a 500 on
 * one). It runs on what the schema let through, which is what the handler would store.
 */
export function refuseUnstorableText(value: unknown): void {
  const errors: Record<string, string[]> = {};
  collectUnstorableText(value, [], errors);
  if (Object.keys(errors).length > 0) throw new InvalidFields(errors);
}

/**
 * Walks every string and key, with one path array pushed and popped on the way (copied only
 * where a problem is found): a 1,000-item bulk body has some 10,000 values.
 */
function collectUnstorableText(
  value: unknown,
  path: PropertyKey[],
  errors: Record<string, string[]>,
): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) errors[fieldKey(path)] = [`The ${attributeName(path)} field ${problem}.`];
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item !== 'string' && (typeof item !== 'object' || item === null)) continue;
      path.push(index);
      collectUnstorableText(item, path, errors);
      path.pop();
    }
    return;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    path.push(key);
    const problem = textProblem(key);
    if (problem) errors[fieldKey(path)] = [`The field name ${problem}.`];
    else collectUnstorableText((value as Record<string, unknown>)[key], path, errors);
    path.pop();
  }
}

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character';
  if (!text.isWellFormed()) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return undefined;
}
