import { type RequestHandler, Router } from 'express';
import type { RouteTable } from './route-table';

/** A router and the path it is mounted at (`/` for none). */
export interface MountedRouter {
  mount: string;
  router: Router;
}

/**
 * Routers that only match, for telling which methods a path takes: every route of the table,
 * whichever side of a split deployment serves it, matched as the served routers match.
 */
export function matchingRouters(table: RouteTable<never>): MountedRouter[] {
  const matched: RequestHandler = (_req, _res, next) => next();
  return table.map((group) => {
    const router = Router(group.router);
    for (const route of group.routes) router[route.method](route.path, matched);
    return { mount: group.mount, router };
  });
}

/** What this reads of Express 5's router (2.x) layers: route layers, and routers mounted with `use`. */
interface Layer {
  route?: { methods: Record<string, boolean | undefined> };
  handle?: { stack?: Layer[] };
  match(path: string): { path: string } | false;
}

/**
 * The methods the routers' routes answer at `path` (HEAD wherever GET is), sorted; none for a path no
 * route has. Read from the routers themselves, with their own matching, so it cannot drift from them.
 */
export function methodsAt(routers: readonly MountedRouter[], path: string): string[] {
  const methods = new Set<string>();
  for (const { mount, router } of routers) {
    const stack = router.stack as unknown as Layer[];
    if (mount === '/') collect(stack, path, methods);
    else if (path === mount || path.startsWith(`${mount}/`))
      collect(stack, path.slice(mount.length) || '/', methods);
  }
  return [...methods].sort();
}

function collect(stack: readonly Layer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    let matched: { path: string } | false;
    try {
      matched = layer.match(path);
    } catch {
      // A parameter that is not valid percent-encoding: the router itself answers that request 404.
      continue;
    }
    if (!matched) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (!on || method === '_all') continue;
        into.add(method.toUpperCase());
        if (method === 'get') into.add('HEAD');
      }
    } else if (layer.handle?.stack) {
      collect(layer.handle.stack, path.slice(matched.path.length) || '/', into);
    }
  }
}
