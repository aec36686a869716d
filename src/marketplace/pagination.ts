// Walks a list endpoint page by page (docs/architecture.md, Lists): links.next when the server gives it, else
// meta.current_page/last_page, else until a short page. A walk that would not end is an error, never a loop.
import { decodeListBody, decodeResponse } from './decode.ts';
import { PaginationError } from './marketplace-errors.ts';
import type { HttpTransport } from './http.ts';
import type { CallOptions, ListPage } from './marketplace-client.ts';

export interface WalkOptions<T> {
  readonly transport: HttpTransport;
  /** Collection path below the API prefix: `/accounts`. */
  readonly path: string;
  /** Query of every page (sort, page size, filter); kept on pages reached through links.next too. */
  readonly params: URLSearchParams;
  readonly pageParam: string;
  /** Send `page=1` on the first request (the image list is documented without parameters). */
  readonly numberFirstPage: boolean;
  /** The page size asked for, for the short-page rule; undefined: no short-page rule, one page unless told. */
  readonly perPage?: number;
  readonly maxPages: number;
  /** One element; undefined skips it (an offer without external_id). Throws DecodeError on a wrong shape. */
  readonly decode: (raw: unknown) => T | undefined;
  readonly idOf: (item: T) => number;
  readonly call?: CallOptions;
}

/** links.next as a query on our own origin and path: the key never follows a link elsewhere. */
function nextQuery(next: string, fullPath: string, path: string, params: URLSearchParams): URLSearchParams | undefined {
  let url: URL;
  try {
    url = new URL(next, `http://origin.invalid${fullPath}`);
  } catch {
    return undefined;
  }
  // A proxy may give its own host or prefix; the collection must still be this one.
  if (!url.pathname.replace(/\/+$/, '').endsWith(path)) return undefined;
  const q = new URLSearchParams(url.search);
  // Many servers build links.next from the page number alone and drop sort and page size.
  for (const [k, v] of params) if (!q.has(k)) q.set(k, v);
  return q;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length > 0 && a.length === b.length && a.every((id, i) => id === b[i]);
}

export async function* walkPages<T>(o: WalkOptions<T>): AsyncGenerator<ListPage<T>, void, undefined> {
  const fullPath = o.transport.fullPath(o.path);
  let query = new URLSearchParams(o.params);
  if (o.numberFirstPage) query.set(o.pageParam, '1');
  let counter = 1;
  const seenQueries = new Set<string>();
  let prevServerPage: number | undefined;
  let prevIds: number[] = [];
  for (;;) {
    const q = query.toString();
    const where = { method: 'GET', path: fullPath, ...(q ? { query: q } : {}) };
    if (counter > o.maxPages) throw new PaginationError(where, `more than ${o.maxPages} pages: giving up`);
    if (seenQueries.has(q)) throw new PaginationError(where, 'the next page is one already read');
    seenQueries.add(q);
    const res = await o.transport.send({
      method: 'GET',
      path: o.path,
      ...(q ? { query: q } : {}),
      idempotent: true,
      answer: 'list',
      ...(o.call ? { call: o.call } : {}),
    });
    const { body, items, skipped } = decodeResponse(res, (raw) => {
      const b = decodeListBody(raw);
      const decoded: T[] = [];
      for (const element of b.data) {
        const item = o.decode(element);
        if (item !== undefined) decoded.push(item);
      }
      return { body: b, items: decoded, skipped: b.data.length - decoded.length };
    });
    if (body.currentPage !== undefined && body.currentPage === prevServerPage) {
      throw new PaginationError({ ...where, status: res.status }, `page ${body.currentPage} came back twice`);
    }
    const ids = items.map(o.idOf);
    if (sameIds(ids, prevIds))
      throw new PaginationError({ ...where, status: res.status }, 'a page repeated the previous one');
    prevServerPage = body.currentPage;
    prevIds = ids;

    let next: URLSearchParams | undefined;
    if (body.next !== undefined) {
      if (body.next !== null) {
        next = nextQuery(body.next, fullPath, o.path, o.params);
        if (!next)
          throw new PaginationError(
            { ...where, status: res.status },
            `links.next leaves the list: ${body.next.slice(0, 200)}`,
          );
      }
    } else if (body.currentPage !== undefined && body.lastPage !== undefined) {
      if (body.currentPage < body.lastPage) next = withPage(query, o.pageParam, body.currentPage + 1);
    } else if (o.perPage !== undefined && body.data.length > 0 && body.data.length >= (body.perPage ?? o.perPage)) {
      next = withPage(query, o.pageParam, counter + 1);
    }
    yield {
      items,
      page: body.currentPage ?? counter,
      hasMore: next !== undefined,
      ...(skipped > 0 ? { skipped } : {}),
    };
    if (!next) return;
    query = next;
    counter++;
  }
}

function withPage(query: URLSearchParams, pageParam: string, page: number): URLSearchParams {
  const q = new URLSearchParams(query);
  q.set(pageParam, String(page));
  return q;
}
