import { UnavailableError } from '@cm/platform';
import { unitOfGeneration } from '../../rollups/broken-units';
import type { DamagedPage } from '../../rollups/damaged-pages';
import { LEVEL_NAMES, parseUnitId, unitEnd, unitId, type UnitRef } from '../../rollups/rollup-units';
import { HOUR_MS } from '../../storage/time-units';
import type { RawStep } from '../plan/plan-report';

/**
 * How long a client is asked to wait: the span stays unanswerable until an operator restores
 * the raw events and rebuilds it, so a prompt retry would only ask again.
 */
const LOST_RETRY_AFTER_SECONDS = 3600;

/**
 * A report that needs the span of a rollup unit whose cells of this owner do not decode (or were
 * left out of it for that reason) where no smaller unit answers it and the raw events are past
 * retention: an answer would be short, so the report is refused (503) naming the unit.
 */
export class LostCellsError extends UnavailableError {
  constructor(readonly unit: UnitRef) {
    super(
      `the stored rollup of this owner for the ${LEVEL_NAMES[unit.level] ?? 'unit'} from ${new Date(unit.start).toISOString()} (unit ${unitId(unit)}) is damaged and its raw events are past retention: reports of this owner over that span cannot be answered`,
      LOST_RETRY_AFTER_SECONDS,
    );
  }
}

/** What a plan's raw reads are checked against (all of it gathered while planning). */
export interface LostSpanTerms {
  /** Units the report could not use for this owner: damaged pages, or the owner left out (`built.lost` on its mark). */
  refused: ReadonlyMap<string, UnitRef>;
  /** Starts of the hours the planner found marked (written at some time): an hour without one never held an event. */
  written: ReadonlySet<number>;
  /** The first day whose raw events are kept (epoch ms); undefined: all are. */
  rawKeptFrom: number | undefined;
}

/**
 * Refuses a plan that would read, from raw events past retention, a written hour inside a unit
 * the report could not use for this owner: those events are gone, and the unit held them. An
 * unwritten hour there is no loss (nothing was ever in it), and raw reads past retention
 * elsewhere are not this check's business (no unit of this owner's ever covered them).
 */
export function refuseLostSpans(raw: readonly RawStep[], terms: LostSpanTerms): void {
  const { refused, written, rawKeptFrom } = terms;
  if (rawKeptFrom === undefined || refused.size === 0 || written.size === 0) return;
  for (const step of raw) {
    const to = Math.min(step.to, rawKeptFrom);
    for (let hour = Math.floor(step.from / HOUR_MS) * HOUR_MS; hour < to; hour += HOUR_MS) {
      if (!written.has(hour)) continue;
      // the smallest unit holding it is named: the span an operator would have to restore
      let lost: UnitRef | undefined;
      for (const unit of refused.values())
        if (unit.start <= hour && hour < unitEnd(unit) && (!lost || unit.level < lost.level)) lost = unit;
      if (lost) throw new LostCellsError(lost);
    }
  }
}

/** What a planning round's coverage found (RollupCoverage.load): none without rollups. */
export interface RoundCoverage {
  lost?: ReadonlyMap<string, UnitRef>;
  written?: readonly number[];
}

/**
 * What one report learns about the units it cannot use for its owner (listed lost on their
 * marks, or met with pages that do not decode) and the hours its coverage found written, kept
 * over its planning rounds; `check` refuses a plan against all of it (refuseLostSpans).
 */
export class LostSpans {
  private readonly refused = new Map<string, UnitRef>();
  private readonly written = new Set<number>();

  /** `rawKeptFrom`: the first day whose raw events are kept (undefined: all are). */
  constructor(private readonly rawKeptFrom: number | undefined) {}

  /** The units of pages that did not decode. */
  noteDamaged(pages: readonly DamagedPage[]): void {
    for (const page of pages) this.refuse(unitOfGeneration(page.g));
  }

  /**
   * Refuses a round's plan against all the report learnt, this round's coverage included: the
   * units built without this owner's cells (parsed where their marks were read) and the written
   * hours it looked up. Without rollups there is no coverage, and nothing to add.
   */
  check(raw: readonly RawStep[], found: RoundCoverage = {}): void {
    for (const [id, unit] of found.lost ?? []) this.refused.set(id, unit);
    for (const hour of found.written ?? []) this.written.add(hour);
    refuseLostSpans(raw, { refused: this.refused, written: this.written, rawKeptFrom: this.rawKeptFrom });
  }

  private refuse(id: string): void {
    const unit = parseUnitId(id);
    if (unit) this.refused.set(id, unit);
  }
}
