import type { RequestContext } from './context.js';
import type { Operation } from './openapi.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A reply body already serialised, sent as it is: the concatenation of its parts (text, or UTF-8 bytes). */
export class RawJson {
  readonly parts: ReadonlyArray<string | Uint8Array>;
  /** Called once uWS has sent or copied the reply, or the reply is dropped (a route's text gives back
   *  the shared memory it is in). */
  onSent: () => void = () => {};
  /** Set when the one bytes part among strings sits where its owner can write the strings around it
   *  (a route's text in its arena slot): the whole reply as one view, sent without a copy; null when there
   *  is no room for them. Called with the text before that part and after it. */
  frame?: (before: string, after: string) => Uint8Array | null;
  constructor(...parts: Array<string | Uint8Array>) {
    this.parts = parts;
  }
}

/** A binary body sent as it is (tiles, fonts); the reply names its Content-Type. */
export class RawBytes {
  constructor(readonly bytes: Uint8Array) {}
}

export interface Reply {
  status: number;
  /** JSON-serialisable value, RawJson or RawBytes. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  method: Method;
  /** Template with `{name}` parameters, e.g. `/v1/pois/{id}`; reported as the endpoint in usage. */
  path: string;
  /** Permission the key needs; handlers ask for conditional ones with `ctx.require`. */
  permission?: string;
  /** Public routes (health) skip authentication and rate limiting. */
  public?: boolean;
  /** How the body is read: buffered JSON (default for POST/PUT), a stream (uploads), or none. */
  body?: 'json' | 'stream' | 'none';
  /** The handler reads `ctx.peer`, the client's address (looked up only for the routes that ask). */
  peer?: boolean;
  /** Body size limit in bytes (413 beyond). */
  bodyLimit?: number;
  handler: (ctx: RequestContext) => Promise<Reply> | Reply;
  /** The operation in the OpenAPI document (every route outside /dashboard has one). */
  openapi?: Operation;
}

interface Node {
  children: Map<string, Node>;
  param?: { name: string; node: Node };
  routes: Map<Method, Route>;
}

const newNode = (): Node => ({ children: new Map(), routes: new Map() });

export type Match = { kind: 'found'; route: Route; params: Record<string, string> } | { kind: 'method-not-allowed'; allow: string[] } | { kind: 'not-found' };

/** A segment trie: static segments win over parameters. */
export class Router {
  private readonly root = newNode();
  private readonly added: Route[] = [];
  /** Routes for `<prefix>/*`: every method on a path under the prefix that no other route serves. */
  private readonly fallbacks: Array<{ prefix: string; route: Route }> = [];

  /** Every route added, in order (the contract test checks each against the OpenAPI document). */
  get routes(): readonly Route[] {
    return this.added;
  }

  add(route: Route): void {
    if (route.path.endsWith('/*')) {
      this.fallbacks.push({ prefix: route.path.slice(0, -2), route });
      this.added.push(route);
      return;
    }
    let node = this.root;
    for (const seg of split(route.path)) {
      const param = /^\{(\w+)\}$/.exec(seg);
      if (param) {
        node.param ??= { name: param[1], node: newNode() };
        if (node.param.name !== param[1]) throw new Error(`conflicting parameter names at ${route.path}`);
        node = node.param.node;
      } else {
        let next = node.children.get(seg);
        if (!next) node.children.set(seg, (next = newNode()));
        node = next;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    node.routes.set(route.method, route);
    this.added.push(route);
  }

  match(method: string, path: string): Match {
    const params: Record<string, string> = {};
    const node = this.walk(this.root, split(path), 0, params);
    if (!node || node.routes.size === 0) {
      const fallback = this.fallbacks.find((f) => path === f.prefix || path.startsWith(`${f.prefix}/`));
      return fallback ? { kind: 'found', route: fallback.route, params } : { kind: 'not-found' };
    }
    // HEAD is GET without the body (RFC 9110 §9.3.2); the server leaves the body out.
    const route = node.routes.get((method === 'HEAD' ? 'GET' : method) as Method);
    if (!route) {
      const allow: string[] = [...node.routes.keys()];
      return { kind: 'method-not-allowed', allow: allow.includes('GET') ? [...allow, 'HEAD'] : allow };
    }
    return { kind: 'found', route, params };
  }

  private walk(node: Node, segs: string[], i: number, params: Record<string, string>): Node | undefined {
    if (i === segs.length) return node;
    const child = node.children.get(segs[i]);
    if (child) {
      const found = this.walk(child, segs, i + 1, params);
      if (found && found.routes.size > 0) return found;
    }
    if (node.param && segs[i] !== '') {
      let value: string;
      try {
        value = decodeURIComponent(segs[i]);
      } catch {
        // A malformed %-escape names no resource we serve: 404.
        return undefined;
      }
      const found = this.walk(node.param.node, segs, i + 1, params);
      if (found && found.routes.size > 0) {
        params[node.param.name] = value;
        return found;
      }
    }
    return undefined;
  }
}

function split(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}
