import type { EventDocument } from '../storage/event-document';
import { OWNERS } from '../../test/support/rollup-fixture';
import { familyPages } from '../../test/support/old-format-day';
import { testOldFormatMigration } from '../../test/support/old-format-migration';
import { FAMILIES } from './families';

// Pages of format 4 stored each exact visitor set with its hashes, in every family; format 5 stores
// an owner's visitors of the unit once (its dictionary, on the first totals page) and the sets as
// indexes into it. Format 4 is still read as it is: reports use such units right away, and the
// builder converts every one at its first pass, whether its raw events are kept or not, each
// answering after what it answered before.
const bytesOf = (b: unknown) => (b as { position: number } | undefined)?.position ?? 0;

testOldFormatMigration({
  format: 4,
  // the visitor sets and dictionaries, every family
  async storedBytes(db, g) {
    const docs = await db.collection('rollup_cells').find({ g }).toArray();
    return docs.reduce((n, d) => n + bytesOf(d.u) + bytesOf(d.v), 0);
  },
  oldBytes(events: readonly EventDocument[]) {
    return OWNERS.flatMap((owner) => FAMILIES.flatMap((family) => familyPages('x', owner, family, events, 4))).reduce(
      (n, p) => n + bytesOf(p.u),
      0,
    );
  },
});
