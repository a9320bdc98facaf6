import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ValidateFunction } from 'ajv';
import { FieldErrors, invalidField } from '../domain-errors.ts';

/**
 * A template's `data_schema` is a JSON Schema its integrator writes: Ajv compiles it to a
 * function once (cached by the schema's text), and a job's data is checked against it with
 * every problem reported by its path (`data.items.0.price`), in the usual `errors` shape.
 */
let ajv: AjvInstance | undefined;
/**
 * Ajv is loaded by the first schema (~25 ms of CPU), not at start: most servers check no
 * template data. It is CommonJS, so `require` loads it there and then.
 */
function ajvInstance(): AjvInstance {
  if (ajv) return ajv;
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  ajv = new Ajv({ allErrors: true, strict: false });
  return ajv;
}

const compiled = new Map<string, ValidateFunction>();
const maxCompiled = 200;

function validatorOf(schemaText: string): ValidateFunction {
  let validate = compiled.get(schemaText);
  if (!validate) {
    validate = ajvInstance().compile(JSON.parse(schemaText) as object);
    if (compiled.size >= maxCompiled) compiled.delete(compiled.keys().next().value!);
    compiled.set(schemaText, validate);
  }
  return validate;
}

/** A 422 on `data_schema` unless the schema compiles. */
export function checkDataSchema(schema: object): void {
  try {
    validatorOf(JSON.stringify(schema));
  } catch (error) {
    throw invalidField(
      'data_schema',
      `The data schema field must be a valid JSON Schema: ${(error as Error).message}.`,
    );
  }
}

/** A 422 naming the path of each problem unless `data` matches the schema (JSON text). */
export function checkData(schemaText: string | null, data: unknown, field = 'data'): void {
  if (schemaText === null) return;
  const validate = validatorOf(schemaText);
  if (validate(data)) return;
  const errors = new FieldErrors();
  for (const problem of validate.errors ?? []) {
    const path = problem.instancePath.split('/').slice(1).map(decodePointer);
    const missing =
      problem.keyword === 'required'
        ? [(problem.params as { missingProperty: string }).missingProperty]
        : [];
    const key = [field, ...path, ...missing].join('.');
    errors.add(key, `The ${key} field ${problem.message ?? 'is invalid'}.`);
  }
  errors.throwIfAny();
}

const decodePointer = (part: string) => part.replaceAll('~1', '/').replaceAll('~0', '~');
