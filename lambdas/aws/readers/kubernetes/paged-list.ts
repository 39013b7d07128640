import { statusOf } from './api-errors.js';
import type { PagedList } from './client.js';

/** One page of a list as the API server answers it. */
type Page<T> = { items: T[]; metadata?: { _continue?: string; resourceVersion?: string } };

/**
 * Every page of a list, at most `maxPages`, restarting once from the first page when the `continue`
 * token expired (410). Also what a watch needs after it: the list's resourceVersion (every page is
 * served at the first page's version) and whether the page bound cut the list short.
 */
export async function readPages<T>(read: (cont?: string) => Promise<Page<T>>, maxPages: number): Promise<PagedList<T>> {
  for (let restart = 0; ; restart += 1) {
    try {
      const items: T[] = [];
      let cont: string | undefined;
      let resourceVersion: string | undefined;
      for (let n = 0; n < maxPages; n += 1) {
        const r = await read(cont);
        items.push(...r.items);
        resourceVersion ??= r.metadata?.resourceVersion;
        cont = r.metadata?._continue || undefined;
        if (!cont) break;
      }
      return { items, resourceVersion, complete: cont === undefined };
    } catch (e) {
      if (statusOf(e) === 410 && restart === 0) continue;
      throw e;
    }
  }
}
