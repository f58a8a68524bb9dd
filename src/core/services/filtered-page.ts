import type { PageQuery, PageResult, StoreView } from '../ports/store.js';

/** Records read per step while looking for matches. */
const STEP = 256;

/**
 * A page of the records of one partition that satisfy `keep`, in the query's order, with the same
 * cursor semantics as `view.page` (positions): it reads the partition in steps until `limit`
 * matches and one more are found, so its cost grows with how far it had to read, not with the
 * collection. For small filtered lists (deliveries by endpoint or status); a list that is filtered
 * on every request at scale deserves its own partition instead.
 */
export async function filteredPage<T>(view: StoreView, collection: string, query: PageQuery, keep: (record: T) => boolean): Promise<PageResult<T>> {
  const items: PageResult<T>['items'] = [];
  const newest = (query.order ?? 'newest') === 'newest';
  let cursor = newest ? query.before : query.after;
  for (;;) {
    const step = await view.page<T>(collection, {
      partition: query.partition,
      limit: STEP,
      ...(query.order ? { order: query.order } : {}),
      ...(cursor === undefined ? {} : newest ? { before: cursor } : { after: cursor }),
    });
    for (const item of step.items) {
      if (!keep(item.record)) continue;
      if (items.length === query.limit) return { items, hasMore: true };
      items.push(item);
    }
    const last = step.items[step.items.length - 1];
    if (!step.hasMore || !last) return { items, hasMore: false };
    cursor = last.position;
  }
}
