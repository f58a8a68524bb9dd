import type { RouteDefinition } from '../core/api/route.js';

/** What a path and method lead to. */
export type RouteLookup =
  | { kind: 'route'; route: RouteDefinition; params: Record<string, string> }
  /** The path exists but not with this method: the methods it takes, for `Allow`. */
  | { kind: 'method'; allow: string }
  | { kind: 'none' };

/** One level of the path tree: literal segments, at most one `{name}` segment, and the routes ending here. */
interface PathNode {
  literal: Map<string, PathNode>;
  param: { name: string; node: PathNode } | undefined;
  /** Routes ending at this node by method, in table order. */
  routes: Map<string, RouteDefinition>;
}

const newNode = (): PathNode => ({ literal: new Map(), param: undefined, routes: new Map() });

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** A path parameter as the handler sees it: percent-decoded, or as sent when it does not decode. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The route table compiled for lookups by method and path: paths without parameters are one map
 * lookup; the others walk a tree of segments where a literal segment wins over a `{name}` one
 * (`/v1/agent/credentials` before `/v1/agent/{handle}`), with backtracking. Paths are matched
 * exactly: no trailing slash, and a parameter is one non-empty segment. HEAD is answered as GET.
 */
export class RouteMatcher {
  private readonly exact = new Map<string, Map<string, RouteDefinition>>();
  private readonly root = newNode();

  constructor(routes: readonly RouteDefinition[]) {
    for (const route of routes) {
      if (!route.path.includes('{')) {
        let byMethod = this.exact.get(route.path);
        if (!byMethod) this.exact.set(route.path, (byMethod = new Map()));
        if (!byMethod.has(route.method)) byMethod.set(route.method, route);
      }
      let node = this.root;
      for (const segment of route.path.split('/').slice(1)) {
        const param = /^\{(\w+)\}$/.exec(segment)?.[1];
        if (param === undefined) {
          let next = node.literal.get(segment);
          if (!next) node.literal.set(segment, (next = newNode()));
          node = next;
        } else {
          // Two routes naming the same position differently share the node; each keeps its own name.
          node.param ??= { name: param, node: newNode() };
          node = node.param.node;
        }
      }
      if (!node.routes.has(route.method)) node.routes.set(route.method, route);
    }
  }

  /** The route for `method` and `path` (the path as sent, without the query). */
  match(method: string, path: string): RouteLookup {
    const wanted = method === 'HEAD' ? 'GET' : method;
    const exact = this.exact.get(path);
    if (exact) {
      const route = exact.get(wanted);
      if (route) return { kind: 'route', route, params: NO_PARAMS };
    }
    if (path.charCodeAt(0) !== 47 /* / */) return { kind: 'none' };
    const segments = path.split('/');
    const ends: PathNode[] = [];
    const values: string[] = [];
    const found = this.walk(this.root, segments, 1, wanted, values, ends);
    if (found) return { kind: 'route', route: found, params: this.paramsOf(found, segments) };
    if (ends.length === 0) return { kind: 'none' };
    return { kind: 'method', allow: allowOf(ends) };
  }

  /**
   * Depth-first, literal before parameter: the first route of `method` at a node the segments
   * lead to; every node reached on the way is collected in `ends` for a 405's `Allow`.
   */
  private walk(node: PathNode, segments: string[], at: number, method: string, values: string[], ends: PathNode[]): RouteDefinition | undefined {
    if (at === segments.length) {
      if (node.routes.size === 0) return undefined;
      ends.push(node);
      return node.routes.get(method);
    }
    const segment = segments[at]!;
    const literal = node.literal.get(segment);
    if (literal) {
      const found = this.walk(literal, segments, at + 1, method, values, ends);
      if (found) return found;
    }
    if (node.param && segment !== '') return this.walk(node.param.node, segments, at + 1, method, values, ends);
    return undefined;
  }

  /** The `{name}` values of a matched route, read off the path by the route's own pattern. */
  private paramsOf(route: RouteDefinition, segments: string[]): Record<string, string> {
    const params: Record<string, string> = {};
    const pattern = route.path.split('/');
    for (let i = 1; i < pattern.length; i++) {
      const part = pattern[i]!;
      if (part.charCodeAt(0) === 123 /* { */) params[part.slice(1, -1)] = decodeSegment(segments[i]!);
    }
    return params;
  }
}

/** The methods of every node a path reached, in a stable order, as an `Allow` value. */
function allowOf(ends: PathNode[]): string {
  const methods = new Set<string>();
  for (const node of ends) for (const method of node.routes.keys()) methods.add(method);
  if (methods.has('GET')) methods.add('HEAD');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(', ');
}
