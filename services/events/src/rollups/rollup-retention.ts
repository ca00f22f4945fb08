import type { CellStore } from './cell-store';
import type { RollupMarks } from './rollup-marks';

/**
 * Drops rollups of days past their retention: the marks first (from then on reports read those
 * spans from raw events, or find nothing), then the cells of every generation they pointed to.
 * A unit that starts before the cutoff goes whole (a block reaching past it is answered from its
 * smaller units afterwards).
 */
export class RollupRetention {
  constructor(private readonly marks: RollupMarks, private readonly cells: CellStore) {}

  /** Drops every unit starting before `cutoff` (epoch ms); returns how many. */
  async dropBefore(cutoff: number): Promise<number> {
    const doomed = await this.marks.collection.find({ t: { $lt: cutoff } }, { projection: { b: 1, pending: 1 } }).toArray();
    if (doomed.length === 0) return 0;
    await this.marks.collection.deleteMany({ _id: { $in: doomed.map((m) => m._id) } });
    const gens = doomed.flatMap((m) => [...(m.b ? [m.b.g] : []), ...(m.pending ?? []).map((p) => p.g)]);
    await this.cells.dropGenerations(gens);
    return doomed.length;
  }
}
