import type { Filter, UpdateFilter } from 'mongodb';
import type { UnitMark } from './unit-mark';

/**
 * How a unit's marks (unit-mark.ts) are stored in `rollup_marks`, `_id` = unitId. The names are
 * short because the consumer upserts a mark per touched unit on every held write and every
 * report reads thousands of them; only the store files (this one, rollup-marks.ts, unit-commit.ts,
 * broken-units.ts, rollup-retention.ts, legacy-migration.ts) see them. Everything else works on
 * UnitMark (markFromDocument). Changing a name here is a data migration.
 */
export interface MarkDocument {
  _id: string;
  /** level */
  l: number;
  /** start */
  t: number;
  /** started */
  s: number;
  /** finished */
  f: number;
  at: Date;
  dirty: boolean;
  /** built */
  b?: BuiltDocument;
  /** pending generations: `g` the generation, `at` when it was reserved */
  pending?: Array<{ g: string; at: Date }>;
  retired?: true;
}

interface BuiltDocument {
  /** started, finished and generation the cells were built for */
  s: number;
  f: number;
  g: string;
  lost?: string[];
}

/**
 * The fields a report's plan reads of a mark (its level and start, whether it is built for its
 * writes, the built generation and the owners it lost, whether it is retired: isBuilt and
 * isLostFor in unit-mark.ts): the rest (when it was last written, dirty, pending generations) is
 * the builder's, and leaving it out makes each of a report's marks cheaper to send and decode.
 */
export const PLANNING_PROJECTION = { l: 1, t: 1, s: 1, f: 1, b: 1, retired: 1 } as const;

/** A stored mark in domain names (a field a projection left out stays undefined). */
export function markFromDocument(doc: MarkDocument): UnitMark {
  const mark: UnitMark = {
    id: doc._id,
    level: doc.l,
    start: doc.t,
    started: doc.s,
    finished: doc.f,
    at: doc.at,
    dirty: doc.dirty,
  };
  if (doc.b) {
    const { s, f, g, lost } = doc.b;
    mark.built =
      lost === undefined
        ? { started: s, finished: f, generation: g }
        : { started: s, finished: f, generation: g, lost };
  }
  if (doc.pending) mark.pending = doc.pending.map((p) => ({ generation: p.g, at: p.at }));
  if (doc.retired) mark.retired = true;
  return mark;
}

/** A mark still at this snapshot (no write started or finished since) and not retired: what a build may reserve on. */
export function reserveFilter(snapshot: UnitMark): Filter<MarkDocument> {
  return { _id: snapshot.id, s: snapshot.started, f: snapshot.finished, retired: { $exists: false } };
}

/**
 * A mark a build of generation `g` may publish on: still at the snapshot, `g` still reserved,
 * not retired, and the generation it replaces still current.
 */
export function publishFilter(snapshot: UnitMark, g: string): Filter<MarkDocument> {
  const filter: Filter<MarkDocument> = {
    _id: snapshot.id,
    s: snapshot.started,
    f: snapshot.finished,
    'pending.g': g,
    retired: { $exists: false },
  };
  if (snapshot.built) filter['b.g'] = snapshot.built.generation;
  else filter.b = { $exists: false };
  return filter;
}

/** Generation `g` current for the snapshot (its owners `lost` left out), its reservation gone, the unit clean. */
export function publishUpdate(snapshot: UnitMark, g: string, lost: readonly string[]): UpdateFilter<MarkDocument> {
  return {
    $set: {
      b: { s: snapshot.started, f: snapshot.finished, g, ...(lost.length > 0 ? { lost: [...lost] } : {}) },
      dirty: false,
    },
    $pull: { pending: { g } },
  };
}
