import type { EventDocument } from '../storage/event-document';
import { OWNERS } from '../../test/support/rollup-fixture';
import { familyPages } from '../../test/support/old-format-day';
import { testOldFormatMigration } from '../../test/support/old-format-migration';
import { FAMILIES } from './families';

// Pages of format 3 stored each visitor sample with its hashes; later formats leave out those of
// an exact sample, which its entry's visitor set holds. Format 3 is still read as it is: reports
// use such units right away, and the builder converts every one at its first pass, whether its
// raw events are kept or not, each answering after what it answered before.
const samples = (page: object) => (page as { r?: { position: number } }).r?.position ?? 0;

testOldFormatMigration({
  format: 3,
  // the visitor samples (pages family)
  async storedBytes(db, g) {
    const docs = await db.collection('rollup_cells').find({ g, f: 'p' }).toArray();
    return docs.reduce((n, d) => n + samples(d), 0);
  },
  oldBytes(events: readonly EventDocument[]) {
    const family = FAMILIES.find((x) => x.id === 'p')!;
    return OWNERS.flatMap((owner) => familyPages('x', owner, family, events, 3)).reduce((n, p) => n + samples(p), 0);
  },
});
