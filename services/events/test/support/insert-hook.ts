import type { Collection, Db } from 'mongodb';
import type { EventDocument } from '../../src/storage/event-document';

/** Decides what one insertMany does: call `insert` to run the real one (or not, and throw instead); may wait first. */
export type InsertHook = (
  docs: EventDocument[],
  insert: (docs?: EventDocument[]) => Promise<unknown>,
) => Promise<unknown>;

/**
 * The same database over the same real connection, except that every collection's insertMany goes
 * through `hook`: how tests make a write slow, or make the database fail the way it does during
 * and right after an outage, without replacing the driver.
 */
export function withInsertHook(db: Db, hook: InsertHook): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'collection')
        return (name: string) => hookedCollection(target.collection<EventDocument>(name), hook);
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function hookedCollection(collection: Collection<EventDocument>, hook: InsertHook): Collection<EventDocument> {
  return new Proxy(collection, {
    get(target, prop) {
      if (prop === 'insertMany') {
        return (docs: EventDocument[], options?: Parameters<Collection<EventDocument>['insertMany']>[1]) =>
          hook(docs, (some = docs) => target.insertMany(some, options));
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
