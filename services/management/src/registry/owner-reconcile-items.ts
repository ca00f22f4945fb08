import type { OwnerRecord } from '@cm/contracts';
import { buildOwnerRecord } from './owner-record';
import type { ReconcileItem } from './registry-reconciler';
import type { RegistryUserStore } from './registry-user-store';

/** Users read per page. */
const BATCH = 500;

/** Every user in `_id` order, a page at a time, with the owner record it makes now (its content hosts read per page). */
export async function* ownerReconcileItems(
  store: Pick<RegistryUserStore, 'page'>,
  contentHostsByOwner: (ownerIds: string[]) => Promise<Map<string, string[]>>,
): AsyncIterable<ReconcileItem<OwnerRecord>[]> {
  for (
    let page = await store.page(undefined, BATCH);
    page.length > 0;
    page = await store.page(page[page.length - 1]!._id, BATCH)
  ) {
    const hosts = await contentHostsByOwner(page.map((u) => u._id));
    yield page.map((user) => ({
      id: user._id,
      revision: user.revision,
      pending: user.registry_pending === true,
      desired: buildOwnerRecord(user, user.deleted_at ? [] : (hosts.get(user._id) ?? [])),
    }));
  }
}
