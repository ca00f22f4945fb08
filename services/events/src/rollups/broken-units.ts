import type { Collection } from 'mongodb';
import type { Logger } from '@cm/platform';
import { firstKeptDay } from '../retention/expired-buckets';
import type { CellStore } from './cell-store';
import type { DamagedPage } from './damaged-pages';
import type { MarkDocument } from './mark-document';
import { LEVEL_NAMES, parseUnitId } from './rollup-units';

/** Who found a broken unit: a report reading it, or the builder merging it into a parent. */
export type BrokenFoundBy = 'report' | 'builder';

/**
 * What was wrong: `missing` cells (a manifest or a page gone), a `damaged` page (it does not
 * decode; the unit is reset and computed again), or a damaged page of cells that cannot be
 * computed again, whose owner is `lost` from the unit (the other owners keep it).
 */
export type BrokenReason = 'missing' | 'damaged' | 'lost';

export interface BrokenUnitsOptions {
  /** RETENTION_DAYS: a unit with a day past it cannot be computed again (its raw events are gone). Default: never. */
  rawRetentionDays?: number;
  now?: () => Date;
}

/** The unit a generation id (`<unitId>@<gen>`) belongs to. */
export function unitOfGeneration(g: string): string {
  const at = g.indexOf('@');
  return at < 0 ? g : g.slice(0, at);
}

/**
 * Units whose mark says built while their generation cannot be read (its manifest, or a page it
 * lists, is gone, or its pages are of a format this build does not read: written by an earlier
 * version, or a page does not decode): the cells are never trusted, so such a unit is reset to
 * be built again. The reset is a compare-and-set on that generation, so a unit rebuilt meanwhile
 * (whose old cells the winner dropped while a report read them) is left alone and nothing is
 * counted: only a unit really pointing at missing or damaged cells is reset, counted and logged,
 * once per generation. Until it is rebuilt, its spans are read from smaller units or raw events.
 */
export class BrokenUnits {
  private readonly now: () => Date;

  constructor(
    private readonly marks: Collection<MarkDocument>,
    private readonly cells: CellStore,
    private readonly logger: Logger,
    private readonly onReset?: (level: string, foundBy: BrokenFoundBy, reason: BrokenReason) => void,
    private readonly opts: BrokenUnitsOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  /** Resets the units whose current generation is one of `gens`; returns how many were reset. */
  async reset(gens: readonly string[], foundBy: BrokenFoundBy): Promise<number> {
    let reset = 0;
    for (const g of new Set(gens)) if (await this.resetOne(g, foundBy, 'missing')) reset++;
    return reset;
  }

  /**
   * Whether a unit's cells can be computed again: its first day (so every day) still has its raw
   * events. A block's children could rebuild it past that too, but only while none of them is
   * damaged: the plain rule keeps every reset one that a rebuild can undo.
   */
  rebuildable(unit: string): boolean {
    const start = parseUnitId(unit)?.start;
    if (start === undefined) return false;
    if (this.opts.rawRetentionDays === undefined) return true;
    return start >= firstKeptDay(this.now(), this.opts.rawRetentionDays);
  }

  /**
   * Contains pages that do not decode, unit by unit. One whose cells can be computed again is
   * reset like one pointing at missing cells (reason `damaged`): all its owners are read from
   * smaller units or raw events until it is rebuilt. One whose cells cannot keeps them for every
   * other owner: each owner whose page failed is listed on the mark (`b.lost`, compare-and-set on
   * the generation, reason `lost`), so its reports read smaller units and refuse a span that
   * only raw events could answer. Returns whether any of them is reset (a parent waits for it).
   */
  async damaged(pages: readonly DamagedPage[], foundBy: BrokenFoundBy): Promise<{ rebuilding: boolean }> {
    const byGeneration = new Map<string, DamagedPage[]>();
    for (const p of pages) byGeneration.set(p.g, [...(byGeneration.get(p.g) ?? []), p]);
    let rebuilding = false;
    for (const [g, found] of byGeneration) {
      if (this.rebuildable(unitOfGeneration(g))) {
        rebuilding = true;
        await this.resetOne(g, foundBy, 'damaged', found);
        continue;
      }
      for (const owner of new Set(found.map((p) => p.owner)))
        await this.markLost(
          g,
          owner,
          foundBy,
          found.filter((p) => p.owner === owner),
        );
    }
    return { rebuilding };
  }

  private async resetOne(
    g: string,
    foundBy: BrokenFoundBy,
    reason: BrokenReason,
    damaged: readonly DamagedPage[] = [],
  ): Promise<boolean> {
    const unit = unitOfGeneration(g);
    const res = await this.marks.updateOne({ _id: unit, 'b.g': g }, { $unset: { b: '' }, $set: { dirty: true } });
    if (res.modifiedCount !== 1) return false;
    const level = levelOf(unit);
    this.onReset?.(level, foundBy, reason);
    this.logger.warn(
      reason === 'missing'
        ? 'rollup unit pointed at missing cells; reset to be rebuilt, its spans read from smaller units or raw events meanwhile'
        : 'rollup unit has pages that do not decode; reset to be rebuilt, its spans read from smaller units or raw events meanwhile',
      { unit, unit_size: level, generation: g, found_by: foundBy, reason, ...where(damaged) },
    );
    // unreachable now; whatever is left of it goes (by its manifest, or by its field when that is gone too)
    const headed = await this.cells.generationFormats([g]).catch(() => new Map<string, number>());
    await this.cells.dropGenerations([g], headed.has(g) ? [] : [g]).catch(() => undefined);
    return true;
  }

  /** Lists an owner as lost on a unit still pointing at generation `g`: once (counted, logged) per owner and generation. */
  private async markLost(g: string, owner: string, foundBy: BrokenFoundBy, damaged: readonly DamagedPage[]) {
    const unit = unitOfGeneration(g);
    const res = await this.marks.updateOne(
      { _id: unit, 'b.g': g, 'b.lost': { $ne: owner } },
      { $push: { 'b.lost': owner } },
    );
    if (res.modifiedCount !== 1) return;
    const level = levelOf(unit);
    this.onReset?.(level, foundBy, 'lost');
    this.logger.warn(
      "rollup unit has an owner's pages that do not decode and its raw events are past retention; that owner is left out of it (its reports of the span use smaller units, or are refused), every other owner keeps it",
      { unit, unit_size: level, generation: g, found_by: foundBy, reason: 'lost', ...where(damaged) },
    );
  }
}

function levelOf(unit: string): string {
  return LEVEL_NAMES[parseUnitId(unit)?.level ?? -1] ?? 'unknown';
}

/** Which owners' pages failed (ids and families, never a stored value). */
function where(damaged: readonly DamagedPage[]): Record<string, unknown> {
  if (damaged.length === 0) return {};
  return {
    owners: [...new Set(damaged.map((p) => p.owner))],
    pages: damaged.slice(0, 10).map((p) => `${p.family}/${p.page}`),
  };
}
