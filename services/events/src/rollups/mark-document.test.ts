import { markFromDocument, publishFilter, publishUpdate, reserveFilter, type MarkDocument } from './mark-document';
import { unitId } from './rollup-units';
import { isBuilt, isLostFor } from './unit-mark';

const DAY = { level: 1, start: Date.parse('2026-03-08T00:00:00Z') };
const AT = new Date('2026-03-09T00:10:00Z');
const G = `${unitId(DAY)}@m7x2k3p0-0a1b2c3d4e5f`;
const NEW_G = `${unitId(DAY)}@m7x2k9zz-f0e1d2c3b4a5`;
const OWNER = '6650c0ffee0000000000002a';

/** A built day whose latest write happened since: s/f moved past b. */
function stored(over: Partial<MarkDocument> = {}): MarkDocument {
  return {
    _id: unitId(DAY),
    l: DAY.level,
    t: DAY.start,
    s: 42,
    f: 41,
    at: AT,
    dirty: true,
    b: { s: 40, f: 40, g: G, lost: [OWNER] },
    pending: [{ g: NEW_G, at: AT }],
    ...over,
  };
}

describe('markFromDocument', () => {
  test('when a stored mark is read, then every short field has its domain name', () => {
    expect(markFromDocument(stored())).toEqual({
      id: unitId(DAY),
      level: 1,
      start: DAY.start,
      started: 42,
      finished: 41,
      at: AT,
      dirty: true,
      built: { started: 40, finished: 40, generation: G, lost: [OWNER] },
      pending: [{ generation: NEW_G, at: AT }],
    });
  });

  test('when a mark was never built, reserved or retired, then those fields stay absent', () => {
    const mark = markFromDocument(stored({ b: undefined, pending: undefined, s: 3, f: 3 }));
    expect(Object.keys(mark).sort()).toEqual(['at', 'dirty', 'finished', 'id', 'level', 'start', 'started']);
    expect(isBuilt(mark)).toBe(false);
  });

  test('when a built mark has no lost owners, then its built cells list none', () => {
    const mark = markFromDocument(stored({ s: 40, f: 40, b: { s: 40, f: 40, g: G } }));
    expect(mark.built).toEqual({ started: 40, finished: 40, generation: G });
    expect(isBuilt(mark)).toBe(true);
    expect(isLostFor(mark, OWNER)).toBe(false);
  });

  test('when a mark is built for its marks but retired, then it is not built', () => {
    const mark = markFromDocument(stored({ s: 40, f: 40, retired: true }));
    expect(mark.retired).toBe(true);
    expect(isBuilt(mark)).toBe(false);
  });
});

describe('the store filters and updates built from a domain mark', () => {
  test('when a build reserves on a snapshot read back from the store, then the filter is the stored one', () => {
    const doc = stored();
    expect(reserveFilter(markFromDocument(doc))).toEqual({
      _id: doc._id,
      s: doc.s,
      f: doc.f,
      retired: { $exists: false },
    });
  });

  test('when a build of a built unit publishes, then it compares the stored marks and the replaced generation', () => {
    const doc = stored();
    const filter = publishFilter(markFromDocument(doc), NEW_G);
    expect(filter).toEqual({ _id: doc._id, s: 42, f: 41, 'pending.g': NEW_G, retired: { $exists: false }, 'b.g': G });
    // the key order is the one the store always sent
    expect(Object.keys(filter)).toEqual(['_id', 's', 'f', 'pending.g', 'retired', 'b.g']);
  });

  test('when a build of a never-built unit publishes, then it requires the mark to be still unbuilt', () => {
    const doc = stored({ b: undefined });
    expect(publishFilter(markFromDocument(doc), NEW_G)).toEqual({
      _id: doc._id,
      s: 42,
      f: 41,
      'pending.g': NEW_G,
      retired: { $exists: false },
      b: { $exists: false },
    });
  });

  test('when a publish lists lost owners, then the stored snapshot is the short form with them, the reservation pulled', () => {
    const update = publishUpdate(markFromDocument(stored()), NEW_G, [OWNER, '$where']);
    expect(update).toEqual({
      $set: { b: { s: 42, f: 41, g: NEW_G, lost: [OWNER, '$where'] }, dirty: false },
      $pull: { pending: { g: NEW_G } },
    });
  });

  test('when a publish loses no owner, then the stored snapshot carries no lost list', () => {
    const update = publishUpdate(markFromDocument(stored()), NEW_G, []);
    expect(update).toEqual({ $set: { b: { s: 42, f: 41, g: NEW_G }, dirty: false }, $pull: { pending: { g: NEW_G } } });
  });

  test('when the published snapshot is read back, then it is built for the marks it was built from', () => {
    const doc = stored();
    const update = publishUpdate(markFromDocument(doc), NEW_G, []) as { $set: Pick<MarkDocument, 'b' | 'dirty'> };
    const after = markFromDocument({ ...doc, ...update.$set, pending: [] });
    expect(isBuilt(after)).toBe(true);
    expect(after.built!.generation).toBe(NEW_G);
  });
});
