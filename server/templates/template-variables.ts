import {
  type Arguments,
  analyzeSync,
  ForTag,
  TablerowTag,
  Tag,
  type Template,
  TypeGuards,
  Value,
  type Variable,
} from 'liquidjs';
import type { TemplateKind, TemplateVariable } from '../../shared/templates.ts';
import { FieldErrors } from '../domain-errors.ts';
import { parsedTemplate } from './liquid.ts';

/**
 * The data a template reads, found by reading its parsed Liquid (liquidjs's static analysis,
 * `analyzeSync`, on each tag's and output's arguments), never by rendering it: each path of
 * the data it reads (`order.number`; `items[].name` for `{{ item.name }}` inside `{% for item
 * in items %}`), where it is first read, and whether a job's data must hold it:
 *
 * - `required`: read unconditionally: a job's data without it is a 422 naming its path;
 * - `default`: every read of it is in an output or argument with `| default: …`;
 * - `conditional`: read only in an `{% if %}`, `{% unless %}` or `{% case %}` (its conditions
 *   included) or a loop's `{% else %}`: the template decides what to print without it;
 * - `optional`: the data schema declares it (or an object on its path) under `properties`
 *   without listing it in that object's `required`.
 *
 * Names the template makes itself (`assign`, `capture`, `increment`, `forloop`, a loop's
 * variable over anything but a path of the data) are not the data's and are left out. A path
 * stops at an index or a key computed by the template (`items[0]`, `prices[item.sku]`) and at
 * `size`, `first` and `last`.
 */

/** One argument of a tag or output (liquidjs names the iterable only). */
type Argument = Arguments extends Iterable<infer One> ? One : never;

/** A path of the data: keys, `[]` for each element of an array. */
type Path = string[];

interface Read {
  path: Path;
  line: number;
  excused: 'default' | 'conditional' | null;
}

type Binding = { elementsOf: Path } | 'local';

/** The scopes of the walk: the innermost last; the first holds `assign` and `capture`. */
class Scopes {
  readonly #frames: Map<string, Binding>[] = [new Map()];
  push(): void {
    this.#frames.push(new Map());
  }
  pop(): void {
    this.#frames.pop();
  }
  bind(name: string, binding: Binding, outermost = false): void {
    const frame = outermost ? this.#frames[0] : this.#frames.at(-1);
    frame!.set(name, binding);
  }
  find(name: string): Binding | undefined {
    for (let i = this.#frames.length - 1; i >= 0; i -= 1) {
      const binding = this.#frames[i]!.get(name);
      if (binding) return binding;
    }
    return undefined;
  }
}

const stopAt = new Set(['size', 'first', 'last']);
const conditionalTags = new Set(['if', 'unless', 'case']);

/** The variables one argument reads, through liquidjs's public analysis of a template. */
function variablesOf(argument: Argument, token: Template['token']): Variable[] {
  const probe: Template = { token, render: () => undefined, arguments: () => [argument] };
  return Object.values(analyzeSync([probe], { partials: false }).variables).flat();
}

/** A variable's literal path: up to its first computed key, index, `size`, `first`, `last`. */
function literalPath(variable: Variable): Path {
  const path: Path = [];
  for (const segment of variable.segments) {
    if (typeof segment !== 'string' || stopAt.has(segment)) break;
    path.push(segment);
  }
  return path;
}

const hasDefault = (argument: Argument) =>
  (argument instanceof Value || TypeGuards.isFilteredValueToken(argument)) &&
  argument.filters.some((filter) => filter.name === 'default');

function walk(templates: Template[], scopes: Scopes, conditional: boolean, reads: Read[]): void {
  for (const template of templates) {
    const name = template instanceof Tag ? (template.token as { name?: string }).name : undefined;
    const inCondition = conditional || (name !== undefined && conditionalTags.has(name));
    const read = (argument: Argument): Path[] => {
      const paths: Path[] = [];
      for (const variable of variablesOf(argument, template.token)) {
        const path = resolve(literalPath(variable), scopes);
        if (!path) continue;
        paths.push(path);
        const excused = hasDefault(argument) ? 'default' : inCondition ? 'conditional' : null;
        reads.push({ path, line: variable.location.row, excused });
      }
      return paths;
    };
    const argumentPaths = [...(template.arguments?.() ?? [])].map(read);
    for (const identifier of template.localScope?.() ?? []) {
      scopes.bind(identifier.content, 'local', true);
    }
    if (template instanceof ForTag || template instanceof TablerowTag) {
      const collection = template.collection;
      const [path] = argumentPaths[0] ?? [];
      scopes.push();
      for (const local of template.blockScope()) scopes.bind(local, 'local');
      if (path && TypeGuards.isPropertyAccessToken(collection)) {
        scopes.bind(template.variable, { elementsOf: path });
      }
      walk(template.templates, scopes, conditional, reads);
      scopes.pop();
      if (template instanceof ForTag) walk(template.elseTemplates ?? [], scopes, true, reads);
      continue;
    }
    if (template.children) {
      const children = childrenOf(template);
      const scoped = template.blockScope !== undefined;
      if (scoped) {
        scopes.push();
        for (const local of template.blockScope!()) scopes.bind(local, 'local');
      }
      walk(children, scopes, inCondition, reads);
      if (scoped) scopes.pop();
    }
  }
}

/** A tag's children: liquidjs gives them from a generator (it may load partials; ours do not). */
function childrenOf(template: Template): Template[] {
  const generator = template.children!(false, true);
  let step = generator.next();
  while (!step.done) step = generator.next(step.value);
  return step.value;
}

/** A path as the data holds it: a loop variable's path is its collection's elements'. */
function resolve(path: Path, scopes: Scopes): Path | undefined {
  const [root, ...rest] = path;
  if (root === undefined) return undefined;
  const binding = scopes.find(root);
  if (binding === 'local') return undefined;
  if (binding) return [...binding.elementsOf, '[]', ...rest];
  return path;
}

/** How a path is written: `items[].name`. */
export const pathText = (path: Path) => path.join('.').replaceAll('.[]', '[]');

type SchemaNode = { properties?: Record<string, unknown>; required?: unknown; items?: unknown };
const asNode = (value: unknown): SchemaNode | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as SchemaNode)
    : undefined;

/** Whether the schema declares a key on the path without requiring it. */
function optionalInSchema(schema: unknown, path: Path): boolean {
  let node = asNode(schema);
  for (const key of path) {
    if (!node) return false;
    if (key === '[]') {
      node = asNode(node.items);
      continue;
    }
    const declared = node.properties && Object.hasOwn(node.properties, key);
    if (!declared) return false;
    const required = Array.isArray(node.required) && node.required.includes(key);
    if (!required) return true;
    node = asNode(node.properties![key]);
  }
  return false;
}

/**
 * Each variable's path as keys, for the check: its text cannot be split back when a key holds
 * a dot (`order["a.b"]`).
 */
const segmentsOf = new WeakMap<TemplateVariable, Path>();

/** Every path the template reads, once each (the first read that requires it wins). */
function analyse(kind: TemplateKind, source: string, schema: unknown): TemplateVariable[] {
  const reads: Read[] = [];
  walk(parsedTemplate(kind, source), new Scopes(), false, reads);
  const byPath = new Map<string, TemplateVariable>();
  for (const { path, line, excused } of reads) {
    const text = pathText(path);
    const need = optionalInSchema(schema, path) ? 'optional' : (excused ?? 'required');
    const known = byPath.get(text);
    if (!known || (known.need !== 'required' && need === 'required')) {
      const variable: TemplateVariable = { path: text, line, need };
      segmentsOf.set(variable, path);
      byPath.set(text, variable);
    }
  }
  return [...byPath.values()];
}

/**
 * Analysed once per version's content (kind, source, schema): a save analyses it, and every
 * job and preview after it finds it here. Keyed by content rather than by version id, so two
 * databases in one process (or a draft in the console) never share an entry wrongly.
 */
const analysed = new Map<string, TemplateVariable[]>();
const maxAnalysed = 500;

export function templateVariables(
  kind: TemplateKind,
  source: string,
  schemaText: string | null,
): TemplateVariable[] {
  const key = `${kind}\u0000${schemaText ?? ''}\u0000${source}`;
  let variables = analysed.get(key);
  if (!variables) {
    variables = analyse(kind, source, schemaText === null ? null : JSON.parse(schemaText));
    if (analysed.size >= maxAnalysed) analysed.delete(analysed.keys().next().value!);
    analysed.set(key, variables);
  }
  return variables;
}

/** Where a path is missing from the data: the key as the 422 names it, or undefined. */
function missingAt(data: unknown, path: Path, at: string[]): string | undefined {
  if (path.length === 0) return undefined;
  // null is a value the caller gave (Liquid prints it empty): nothing under it is missing.
  if (data === null) return undefined;
  const [key, ...rest] = path as [string, ...string[]];
  if (key === '[]') {
    if (!Array.isArray(data)) return undefined;
    for (const [index, element] of data.entries()) {
      const missing = missingAt(element, rest, [...at, String(index)]);
      if (missing) return missing;
    }
    return undefined;
  }
  if (typeof data !== 'object' || Array.isArray(data) || !Object.hasOwn(data, key)) {
    return [...at, key, ...rest.filter((part) => part !== '[]')].join('.');
  }
  return missingAt((data as Record<string, unknown>)[key], rest, [...at, key]);
}

/**
 * A 422 naming each path the template requires (above) that the data lacks:
 * `data.items`, `data.items.2.name` (the first element without it). A walk over a few paths
 * of the data, no render.
 */
export function checkRequiredData(
  variables: TemplateVariable[],
  data: Record<string, unknown>,
  field = 'data',
): void {
  const errors = new FieldErrors();
  const reported: string[] = [];
  for (const variable of variables) {
    if (variable.need !== 'required') continue;
    const path = segmentsOf.get(variable) ?? variable.path.replaceAll('[]', '.[]').split('.');
    const missing = missingAt(data, path, [field]);
    if (!missing || reported.some((key) => missing.startsWith(`${key}.`))) continue;
    reported.push(missing);
    errors.add(
      missing,
      `The ${missing} field is required: the template reads ${variable.path} (line ${variable.line}). Send it, or give the template a default (| default: …) or a data_schema that does not require it.`,
    );
  }
  errors.throwIfAny();
}
