// The list endpoints' query: sort (a field, '-' = descending, id breaks ties in the same direction),
// per_page (clamped to the maximum), page (1-based), and the envelope with meta and absolute links that
// keep the other query parameters.
import { invalid } from './http-error.ts';

export interface PageLimits {
  readonly defaultPerPage: number;
  readonly maxPerPage: number;
}

export interface PageMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
  from: number | null;
  to: number | null;
}

export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

function positiveIntParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw invalid(name, `The ${name} parameter must be a positive integer, got ${JSON.stringify(raw)}.`);
  }
  return Number(raw);
}

export interface SortSpec {
  readonly field: string;
  readonly descending: boolean;
}

/** Parses `sort`; the field must be one of `allowed`. */
export function parseSort(query: URLSearchParams, allowed: readonly string[], dflt: string): SortSpec {
  const raw = (query.get('sort') ?? '').trim() || dflt;
  const descending = raw.startsWith('-');
  const field = descending ? raw.slice(1) : raw;
  if (!allowed.includes(field))
    throw invalid(
      'sort',
      `The sort field ${JSON.stringify(field)} is not allowed; use one of ${allowed.join(', ')} (prefix - for ` +
        `descending).`,
    );
  return { field, descending };
}

function compareValues(a: unknown, b: unknown): number {
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an === bn ? 0 : an ? -1 : 1; // nulls first, as MySQL sorts them
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const as = String(a);
  const bs = String(b);
  return as < bs ? -1 : as > bs ? 1 : 0;
}

export function sortBy<T extends { id: number }>(
  rows: T[],
  spec: SortSpec,
  value: (row: T, field: string) => unknown,
): T[] {
  const dir = spec.descending ? -1 : 1;
  return rows.sort((x, y) => dir * (compareValues(value(x, spec.field), value(y, spec.field)) || x.id - y.id));
}

export interface Page<T> {
  readonly rows: T[];
  readonly meta: PageMeta;
  readonly links: PageLinks;
}

export function paginate<T>(rows: readonly T[], query: URLSearchParams, limits: PageLimits, requestUrl: URL): Page<T> {
  const perPage = Math.min(positiveIntParam(query, 'per_page') ?? limits.defaultPerPage, limits.maxPerPage);
  const page = positiveIntParam(query, 'page') ?? 1;
  const total = rows.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const start = (page - 1) * perPage;
  const slice = start < total ? rows.slice(start, start + perPage) : [];
  const link = (n: number): string => {
    const u = new URL(requestUrl.href);
    u.searchParams.set('page', String(n));
    return u.href;
  };
  return {
    rows: slice,
    meta: {
      current_page: page,
      last_page: lastPage,
      per_page: perPage,
      total,
      from: slice.length > 0 ? start + 1 : null,
      to: slice.length > 0 ? start + slice.length : null,
    },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? link(page + 1) : null,
    },
  };
}
