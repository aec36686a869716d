// Matches a method and path against the route table. A known path with another method is 405; a
// path nothing matches is 404. The matched template is the counter key.
import type { RouteDef } from './api-route.ts';
import { accountRoutes } from './routes-accounts.ts';
import { imageRoutes } from './routes-images.ts';
import { itemRoutes } from './routes-items.ts';
import { topUpRoutes } from './routes-top-ups.ts';

export const ROUTES: readonly RouteDef[] = [...accountRoutes, ...itemRoutes, ...topUpRoutes, ...imageRoutes];

export type RouteMatch =
  | { readonly kind: 'route'; readonly route: RouteDef; readonly params: Record<string, string>; readonly key: string }
  | { readonly kind: 'method-not-allowed'; readonly key: string; readonly allow: string[] }
  | { readonly kind: 'not-found'; readonly key: string };

function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i]!;
    if (seg.startsWith('{') && seg.endsWith('}')) {
      if (p[i] === '') return undefined;
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(p[i]!);
      } catch {
        return undefined; // a malformed %-escape names nothing
      }
    } else if (seg !== p[i]) return undefined;
  }
  return params;
}

/** Literal segments beat parameters: /accounts/bulk-remove is not the account "bulk-remove". */
function specificity(template: string): number {
  return template.split('/').filter((s) => !s.startsWith('{')).length;
}

const ORDERED = [...ROUTES].sort((a, b) => specificity(b.path) - specificity(a.path));

export function matchRoute(method: string, path: string): RouteMatch {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const matches: { route: RouteDef; params: Record<string, string> }[] = [];
  for (const route of ORDERED) {
    const params = matchTemplate(route.path, trimmed);
    if (params) matches.push({ route, params });
  }
  // Most specific first, so POST /accounts/bulk-remove wins and GET /accounts/bulk-remove is an identifier.
  const hit = matches.find((m) => m.route.method === method);
  if (hit) return { kind: 'route', route: hit.route, params: hit.params, key: `${method} ${hit.route.path}` };
  if (matches.length > 0) {
    const template = matches[0]!.route.path;
    return {
      kind: 'method-not-allowed',
      key: `${method} ${template}`,
      allow: matches.filter((m) => m.route.path === template).map((m) => m.route.method),
    };
  }
  return { kind: 'not-found', key: `${method} (no route)` };
}
