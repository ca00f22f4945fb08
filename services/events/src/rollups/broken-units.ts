import type { Collection } from 'mongodb';
import type { Logger } from '@cm/platform';
import type { CellStore } from './cell-store';
import type { MarkDocument } from './mark-document';
import { LEVEL_NAMES, parseUnitId } from './rollup-units';

/** Who found a broken unit: a report reading it, or the builder merging it into a parent. */
export type BrokenFoundBy = 'report' | 'builder';

/** The unit a generation id (`<unitId>@<gen>`) belongs to. */
export function unitOfGeneration(g: string): string {
  const at = g.indexOf('@');
  return at < 0 ? g : g.slice(0, at);
}

/**
 * Units whose mark says built while their generation cannot be read (its manifest, or a page it
 * lists, is gone, or its pages are of a format this build does not read: written by an earlier
 * version): the cells are never trusted, so such a unit is reset to be built again.
 * The reset is a compare-and-set on that generation, so a unit rebuilt meanwhile (whose old
 * cells the winner dropped while a report read them) is left alone and nothing is counted: only
 * a unit really pointing at missing cells is reset, counted and logged, once per generation.
 * Until it is rebuilt, its spans are read from smaller units or raw events.
 */
export class BrokenUnits {
  constructor(
    private readonly marks: Collection<MarkDocument>,
    private readonly cells: CellStore,
    private readonly logger: Logger,
    private readonly onReset?: (level: string, foundBy: BrokenFoundBy) => void,
  ) {}

  /** Resets the units whose current generation is one of `gens`; returns how many were reset. */
  async reset(gens: readonly string[], foundBy: BrokenFoundBy): Promise<number> {
    let reset = 0;
    for (const g of new Set(gens)) {
      const unit = unitOfGeneration(g);
      const res = await this.marks.updateOne({ _id: unit, 'b.g': g }, { $unset: { b: '' }, $set: { dirty: true } });
      if (res.modifiedCount !== 1) continue;
      reset++;
      const level = LEVEL_NAMES[parseUnitId(unit)?.level ?? -1] ?? 'unknown';
      this.onReset?.(level, foundBy);
      this.logger.warn(
        'rollup unit pointed at missing cells; reset to be rebuilt, its spans read from smaller units or raw events meanwhile',
        {
          unit,
          unit_size: level,
          generation: g,
          found_by: foundBy,
        },
      );
      // unreachable now; whatever is left of it goes (by its manifest, or by its field when that is gone too)
      const headed = await this.cells.generationFormats([g]).catch(() => new Map<string, number>());
      await this.cells.dropGenerations([g], headed.has(g) ? [] : [g]).catch(() => undefined);
    }
    return reset;
  }
}
