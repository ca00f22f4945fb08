import type { EventDocument } from '../storage/event-document';
import { OWNERS } from '../../test/support/rollup-fixture';
import { familyPages, ownerVisitors } from '../../test/support/old-format-day';
import { testOldFormatMigration } from '../../test/support/old-format-migration';
import { FAMILIES } from './families';

// Pages of format 5 stored an owner's visitor dictionary of a unit and its sets' indexes into it,
// and each page's entries' names, keys and devices, in whole bytes (varints); format 6 codes the
// dictionary and the indexes in bits and the keys as runs. Format 5 is still read as it is:
// reports use such units right away, and the builder converts every one at its first pass,
// whether its raw events are kept or not, each answering after what it answered before.
const bytesOf = (b: unknown) => (b as { position: number } | undefined)?.position ?? 0;
const columns = (d: Record<string, unknown>) => bytesOf(d.u) + bytesOf(d.ud) + bytesOf(d.v) + bytesOf(d.k);

testOldFormatMigration({
  format: 5,
  // the visitor sets, dictionaries and keys, every family
  async storedBytes(db, g) {
    const docs = await db.collection('rollup_cells').find({ g }).toArray();
    return docs.reduce((n, d) => n + columns(d), 0);
  },
  oldBytes(events: readonly EventDocument[]) {
    return OWNERS.flatMap((owner) => {
      const visitors = ownerVisitors(owner, FAMILIES, events);
      return FAMILIES.flatMap((family) => familyPages('x', owner, family, events, 5, visitors));
    }).reduce((n, p) => n + columns(p), 0);
  },
  atMost: 0.95,
});
