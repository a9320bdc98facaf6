import { expect } from 'vitest';
import type { Answer } from '../helpers/server.ts';

/**
 * Customer bodies for the validation tests: a valid one, ways to break it, and every broken
 * rule of the customer and address payloads (docs/reference.md) with the `errors` key and
 * Laravel message it must answer.
 */

export const s = (n: number, char = 'a') => char.repeat(n);

/** A valid address with the required fields only. */
export const paulista = {
  zipcode: '01310100',
  street: 'Avenida Paulista',
  district: 'Bela Vista',
  city: 'São Paulo',
  state: 'SP',
  number: '1000',
};

export const address = { ...paulista, complement: 'Sala 1' };

export const valid = {
  name: 'Maria Silva',
  type: 'F',
  code: 'C-1',
  taxvat: '12345678901',
  telephone: '1133334444',
  mobile: '11999998888',
  email: 'maria@example.com',
  credit_limit: 1500.5,
  addresses: [address],
};

export type Body = Record<string, unknown>;

/** The valid body with some fields changed; `undefined` removes a field. */
export function withFields(fields: Body, base: Body = valid): Body {
  const body: Body = { ...base };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete body[key];
    else body[key] = value;
  }
  return body;
}

export function withAddress(fields: Body): Body {
  return { ...valid, addresses: [withFields(fields, address)] };
}

let codeCounter = 0;
/** Each accepted create needs its own code: codes are unique per company. */
export const freshCode = () => `V-${++codeCounter}`;
/** Keeps a code the case is about; gives the valid code a fresh value. */
export const withFreshCode = (body: Body): Body =>
  body.code === valid.code ? { ...body, code: freshCode() } : body;

/** A 422 that names exactly this field, with this message. */
export function expectInvalid(answer: Answer, key: string, message: string) {
  expect(answer.status).toBe(422);
  expect(answer.body.success).toBe(false);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.errors[key]).toEqual([message]);
  // Only the broken field is reported: every other field of the body was valid.
  expect(Object.keys(answer.body.errors)).toEqual([key]);
}

/** [what, body, errors key, Laravel message] */
export const invalidBodies: [string, Body, string, string][] = [
  ['name of blanks only', withFields({ name: '     ' }), 'name', 'The name field is required.'],
  [
    'name of 2 characters inside blanks',
    withFields({ name: '  ab  ' }),
    'name',
    'The name field must be at least 3 characters.',
  ],
  [
    'address street of blanks',
    withAddress({ street: '   ' }),
    'addresses.0.street',
    'The addresses.0.street field is required.',
  ],
  [
    'address number of blanks',
    withAddress({ number: ' ' }),
    'addresses.0.number',
    'The addresses.0.number field is required.',
  ],
  ['name missing', withFields({ name: undefined }), 'name', 'The name field is required.'],
  ['name null', withFields({ name: null }), 'name', 'The name field is required.'],
  ['name empty', withFields({ name: '' }), 'name', 'The name field is required.'],
  [
    'name of 2 characters',
    withFields({ name: 'ab' }),
    'name',
    'The name field must be at least 3 characters.',
  ],
  [
    'name of 256 characters',
    withFields({ name: s(256) }),
    'name',
    'The name field must not be greater than 255 characters.',
  ],
  ['name not a string', withFields({ name: 12345 }), 'name', 'The name field must be a string.'],
  ['type missing', withFields({ type: undefined }), 'type', 'The type field is required.'],
  ['type outside F/J', withFields({ type: 'X' }), 'type', 'The selected type is invalid.'],
  ['type lower-case', withFields({ type: 'f' }), 'type', 'The selected type is invalid.'],
  [
    'code of 101 characters',
    withFields({ code: s(101) }),
    'code',
    'The code field must not be greater than 100 characters.',
  ],
  ['code not a string', withFields({ code: 7 }), 'code', 'The code field must be a string.'],
  [
    'taxvat of 15 digits',
    withFields({ taxvat: s(15, '1') }),
    'taxvat',
    'The taxvat field must not be greater than 14 characters.',
  ],
  [
    'taxvat of 15 digits with punctuation',
    withFields({ taxvat: '123.456.789/0123-45' }),
    'taxvat',
    'The taxvat field must not be greater than 14 characters.',
  ],
  [
    'taxvat with letters',
    withFields({ taxvat: '1234567890A' }),
    'taxvat',
    'The taxvat field must contain only digits.',
  ],
  [
    'taxvat with other symbols',
    withFields({ taxvat: '123#456' }),
    'taxvat',
    'The taxvat field must contain only digits.',
  ],
  [
    'telephone of 31 characters',
    withFields({ telephone: s(31, '1') }),
    'telephone',
    'The telephone field must not be greater than 30 characters.',
  ],
  [
    'telephone not a string',
    withFields({ telephone: 1133334444 }),
    'telephone',
    'The telephone field must be a string.',
  ],
  [
    'mobile of 31 characters',
    withFields({ mobile: s(31, '9') }),
    'mobile',
    'The mobile field must not be greater than 30 characters.',
  ],
  [
    'email without @',
    withFields({ email: 'maria.example.com' }),
    'email',
    'The email field must be a valid email address.',
  ],
  [
    'email without domain',
    withFields({ email: 'maria@' }),
    'email',
    'The email field must be a valid email address.',
  ],
  [
    'email of 256 characters',
    // A local part of 64 (the most RFC 5321 allows), the rest in the domain.
    withFields({ email: `${s(64)}@${s(60, 'd')}.${s(60, 'e')}.${s(65, 'f')}.com` }),
    'email',
    'The email field must not be greater than 255 characters.',
  ],
  [
    'email with a local part of 65 characters',
    withFields({ email: `${s(65)}@example.com` }),
    'email',
    'The email field must not have more than 64 characters before the @.',
  ],
  [
    'credit_limit negative',
    withFields({ credit_limit: -0.01 }),
    'credit_limit',
    'The credit limit field must be at least 0.',
  ],
  [
    'credit_limit with 3 decimals',
    withFields({ credit_limit: 10.005 }),
    'credit_limit',
    'The credit limit field must have at most 2 decimal places.',
  ],
  [
    'credit_limit as a string',
    withFields({ credit_limit: '10' }),
    'credit_limit',
    'The credit limit field must be a number.',
  ],
  [
    'addresses not an array',
    withFields({ addresses: { zipcode: '01310100' } }),
    'addresses',
    'The addresses field must be an array.',
  ],
  [
    'address zipcode missing',
    withAddress({ zipcode: undefined }),
    'addresses.0.zipcode',
    'The addresses.0.zipcode field is required.',
  ],
  [
    'address zipcode of 7 characters',
    withAddress({ zipcode: '0131010' }),
    'addresses.0.zipcode',
    'The addresses.0.zipcode field must be 8 characters.',
  ],
  [
    'address zipcode of 9 characters',
    withAddress({ zipcode: '013101000' }),
    'addresses.0.zipcode',
    'The addresses.0.zipcode field must be 8 characters.',
  ],
  [
    'address street missing',
    withAddress({ street: undefined }),
    'addresses.0.street',
    'The addresses.0.street field is required.',
  ],
  [
    'address street empty',
    withAddress({ street: '' }),
    'addresses.0.street',
    'The addresses.0.street field is required.',
  ],
  [
    'address street of 256 characters',
    withAddress({ street: s(256) }),
    'addresses.0.street',
    'The addresses.0.street field must not be greater than 255 characters.',
  ],
  [
    'address district missing',
    withAddress({ district: undefined }),
    'addresses.0.district',
    'The addresses.0.district field is required.',
  ],
  [
    'address district of 256 characters',
    withAddress({ district: s(256) }),
    'addresses.0.district',
    'The addresses.0.district field must not be greater than 255 characters.',
  ],
  [
    'address city missing',
    withAddress({ city: undefined }),
    'addresses.0.city',
    'The addresses.0.city field is required.',
  ],
  [
    'address city of 256 characters',
    withAddress({ city: s(256) }),
    'addresses.0.city',
    'The addresses.0.city field must not be greater than 255 characters.',
  ],
  [
    'address state missing',
    withAddress({ state: undefined }),
    'addresses.0.state',
    'The addresses.0.state field is required.',
  ],
  [
    'address state of 1 character',
    withAddress({ state: 'S' }),
    'addresses.0.state',
    'The addresses.0.state field must be 2 characters.',
  ],
  [
    'address state of 3 characters',
    withAddress({ state: 'SPX' }),
    'addresses.0.state',
    'The addresses.0.state field must be 2 characters.',
  ],
  [
    'address number missing',
    withAddress({ number: undefined }),
    'addresses.0.number',
    'The addresses.0.number field is required.',
  ],
  [
    'address number of 101 characters',
    withAddress({ number: s(101, '1') }),
    'addresses.0.number',
    'The addresses.0.number field must not be greater than 100 characters.',
  ],
  [
    'address complement of 256 characters',
    withAddress({ complement: s(256) }),
    'addresses.0.complement',
    'The addresses.0.complement field must not be greater than 255 characters.',
  ],
  [
    'second address zipcode wrong',
    { ...valid, addresses: [address, { ...address, zipcode: '1' }] },
    'addresses.1.zipcode',
    'The addresses.1.zipcode field must be 8 characters.',
  ],
];
