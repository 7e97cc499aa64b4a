import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Capability } from '../auth/operator.js';
import type { Session } from '../auth/sessions.js';
import type { Backend } from '../backend/backend.js';

/** What a handler of an API route gets: the request, its session (always signed in), the body. */
export interface ApiContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  session: Session;
  /** The JSON body of a mutation (`{}` for reads). */
  body: Record<string, unknown>;
  backend: Backend;
}

/**
 * One API endpoint. `needs` is checked by the server before the handler runs, against the
 * roles the identity provider gave the signed-in person; a handler returns the JSON to send,
 * or `STREAMED` when it wrote the response itself.
 */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** `/api/resources/:name` — `:x` matches one path segment. */
  path: string;
  needs: Capability;
  handle(ctx: ApiContext): Promise<unknown>;
}

export const STREAMED = Symbol('streamed');

/** A compiled route table. */
export class Router {
  readonly #routes: Array<{ route: Route; pattern: RegExp; names: string[] }>;

  constructor(routes: Route[]) {
    this.#routes = routes.map((route) => {
      const names: string[] = [];
      const source = route.path
        .split('/')
        .map((part) => {
          if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(part.slice(1));
          return '([^/]+)';
        })
        .join('/');
      return { route, pattern: new RegExp(`^${source}$`), names };
    });
  }

  /** The route for this method and path (and its parameters), or why there is none. */
  match(
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | { missing: 'path' | 'method' } {
    let pathMatched = false;
    for (const { route, pattern, names } of this.#routes) {
      const m = pattern.exec(path);
      if (m === null) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { route, params };
    }
    return { missing: pathMatched ? 'method' : 'path' };
  }
}
