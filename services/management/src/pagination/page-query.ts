import Joi from 'joi';
import type { PagePosition } from './page-cursors';

/** Largest page a caller may ask for. */
const PAGE_LIMIT_MAX = 200;

/** `?limit=&cursor=` of a list endpoint; without `limit` the endpoint answers its plain array. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/** Other query parameters are ignored (cache busters and the like), as before pagination existed. */
export const pageQuerySchema = Joi.object<PageQuery>({
  limit: Joi.number().integer().min(1).max(PAGE_LIMIT_MAX),
  cursor: Joi.string().max(512),
})
  .with('cursor', 'limit')
  .unknown(true);

export interface Page<T> {
  items: T[];
  /** Give it back as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** The filter part that continues after `after` in (created_at, _id) order. Values only, never operators from input. */
export function afterPosition(after: PagePosition | undefined): Record<string, unknown> {
  if (!after) return {};
  return { $or: [{ created_at: { $gt: after.created_at } }, { created_at: after.created_at, _id: { $gt: after.id } }] };
}

/** `docs` was fetched with limit + 1: the extra one only says that there is a next page. */
export function toPage<D extends { _id: string; created_at: Date }, T>(
  docs: D[],
  limit: number,
  view: (doc: D) => T,
  cursorAt: (position: PagePosition) => string,
): Page<T> {
  const items = docs.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(view),
    next_cursor: docs.length > limit && last ? cursorAt({ created_at: last.created_at, id: last._id }) : null,
  };
}
