import { HttpError } from './errors.ts';
import type { AnyRoute, Method, RouteHook, RouteHookSource } from './route.ts';

interface CompiledPath {
  pattern: RegExp;
  /** The first segment when it is fixed (`customers`), else null (`/{x}/...`). */
  first: string | null;
  names: string[];
  /** How many segments the path has: a parameter matches one segment, never a `/`. */
  segments: number;
  staticSegments: number;
  routes: Map<Method, AnyRoute>;
  /** Each route's hooks, installed once from its declaration. */
  hooks: Map<Method, readonly RouteHook[]>;
}

export type RouteMatch =
  | {
      kind: 'found';
      route: AnyRoute;
      params: Record<string, string>;
      /** What the route's declaration installed, in the order of the hook sources. */
      hooks: readonly RouteHook[];
    }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

/**
 * Finds the route of a request: exact paths by map, parameterised ones by pattern; with it,
 * the hooks its declaration installed (each source asked once per route, here).
 */
export class Router {
  private readonly exact = new Map<string, CompiledPath>();
  private readonly patterns: CompiledPath[] = [];
  /**
   * The patterns that can match a path, by its first segment and then by its number of
   * segments, in `patterns` order: `/customers/5` tries `/customers/{customer}` alone,
   * never the longer customer patterns nor the product and stock ones.
   */
  private readonly patternsByFirst = new Map<string, CompiledPath[][]>();
  private readonly patternsAnyFirst: CompiledPath[][] = [];
  readonly prefix: string;

  constructor(
    prefix: string,
    routes: readonly AnyRoute[],
    hookSources: readonly RouteHookSource[] = [],
  ) {
    this.prefix = prefix;
    const byPath = new Map<string, CompiledPath>();
    for (const route of routes) {
      let compiled = byPath.get(route.path);
      if (!compiled) {
        compiled = compile(route.path);
        byPath.set(route.path, compiled);
        if (compiled.names.length === 0) this.exact.set(prefix + route.path, compiled);
        else this.patterns.push(compiled);
      }
      if (compiled.routes.has(route.method)) {
        throw new Error(`route ${route.method} ${route.path} is declared twice`);
      }
      compiled.routes.set(route.method, route);
      compiled.hooks.set(
        route.method,
        hookSources.flatMap((source) => source(route) ?? []),
      );
    }
    // `/customers/by-code/{code}` must win over `/customers/{customer}`.
    this.patterns.sort((a, b) => b.staticSegments - a.staticSegments);
    const firsts = new Set(this.patterns.flatMap((compiled) => compiled.first ?? []));
    for (const first of firsts) {
      this.patternsByFirst.set(
        first,
        bySegments(
          this.patterns.filter((compiled) => compiled.first === first || compiled.first === null),
        ),
      );
    }
    this.patternsAnyFirst.push(
      ...bySegments(this.patterns.filter((compiled) => compiled.first === null)),
    );
  }

  match(method: string, pathname: string): RouteMatch {
    if (!pathname.startsWith(this.prefix)) return { kind: 'not_found' };
    const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
    const exact = this.exact.get(pathname);
    if (exact) return pick(exact, wanted, {});
    const rest = pathname.slice(this.prefix.length);
    let allow: string[] | undefined;
    const slash = rest.indexOf('/', 1);
    const first = slash === -1 ? rest.slice(1) : rest.slice(1, slash);
    let segments = 0;
    for (let index = 0; index < rest.length; index++) {
      if (rest.charCodeAt(index) === slashCode) segments++;
    }
    const candidates = (this.patternsByFirst.get(first) ?? this.patternsAnyFirst)[segments] ?? [];
    for (const compiled of candidates) {
      const found = compiled.pattern.exec(rest);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (let index = 0; index < compiled.names.length; index++) {
        params[compiled.names[index]!] = decodeSegment(found[index + 1]!);
      }
      const result = pick(compiled, wanted, params);
      if (result.kind === 'found') return result;
      allow ??= result.kind === 'method_not_allowed' ? result.allow : undefined;
    }
    return allow ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  }
}

const slashCode = 47;

/** The patterns by their number of segments, each list in the order given. */
function bySegments(patterns: CompiledPath[]): CompiledPath[][] {
  const lists: CompiledPath[][] = [];
  for (const compiled of patterns) {
    const list = lists[compiled.segments] ?? [];
    list.push(compiled);
    lists[compiled.segments] = list;
  }
  return lists;
}

function pick(compiled: CompiledPath, method: Method, params: Record<string, string>): RouteMatch {
  const route = compiled.routes.get(method);
  if (route) return { kind: 'found', route, params, hooks: compiled.hooks.get(method)! };
  const allow: string[] = [...compiled.routes.keys()];
  if (allow.includes('GET')) allow.push('HEAD');
  // Every path answers OPTIONS (handle-request.ts), a preflight included.
  allow.push('OPTIONS');
  return { kind: 'method_not_allowed', allow };
}

function compile(path: string): CompiledPath {
  const names: string[] = [];
  let staticSegments = 0;
  const source = path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param) {
        names.push(param[1]!);
        return '([^/]+)';
      }
      if (segment) staticSegments++;
      return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    })
    .join('/');
  const head = path.split('/')[1] ?? '';
  return {
    pattern: new RegExp(`^${source}$`),
    first: /^\{\w+\}$/.test(head) ? null : head,
    names,
    segments: path.split('/').length - 1,
    staticSegments,
    routes: new Map(),
    hooks: new Map(),
  };
}

/** `%E0%A4%A` is no text at all: the client sent a broken URL (400), not an unknown one. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError('bad_request', 'The request path is not valid percent-encoded UTF-8.');
  }
}
