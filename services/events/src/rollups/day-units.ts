import type { FamilyTable } from './cell-table';
import type { GenerationWriter } from './generation-writer';
import type { CellPageDocument } from './page-layout';
import type { UnitMark } from './unit-mark';

/** One owner's cells of one unit being built: a table per family. */
export type OwnerTables = Map<string, FamilyTable>;

/**
 * A unit built in one day's pass over its raw events: an hour, or a 4-hour unit or the day made
 * from the tables of the hours it covers while they are in memory. `first` and `span`: the hours
 * of the day it covers.
 */
export interface DayUnit {
  mark: UnitMark;
  g: string;
  writer: GenerationWriter;
  first: number;
  span: number;
  /** Its pages failed to store: given up alone, the other units of the day go on. */
  error?: unknown;
}

/** One owner's tables of the hours [first, first + span). */
interface Piece {
  first: number;
  span: number;
  tables: OwnerTables;
}

/**
 * One owner's pages of the day's units: each hour's from its tables, then each larger unit's
 * (`parents`, smaller first: the 4-hour units, then the day) from the tables of the pieces it
 * covers, which it absorbs (the states are taken, not copied, once their own pages are made), so
 * a day costs one table merge per piece instead of its children's pages read, decoded and merged.
 * The pages are those of the parent merged from its children's pages, byte for byte: a stored
 * state holds all of an in-memory one, and no aggregate's merge depends on the order of its parts
 * (day-units.int.test.ts builds a day both ways).
 */
export async function writeOwnerDay(
  owner: string,
  byHour: ReadonlyMap<number, OwnerTables>,
  hours: ReadonlyMap<number, DayUnit>,
  parents: readonly DayUnit[],
  io: {
    tables(): OwnerTables;
    pages(unit: DayUnit, owner: string, tables: OwnerTables): CellPageDocument[];
  },
): Promise<void> {
  let pieces: Piece[] = [];
  for (const hour of [...byHour.keys()].sort((a, b) => a - b)) {
    const tables = byHour.get(hour)!;
    await add(hours.get(hour)!, io.pages, owner, tables);
    pieces.push({ first: hour, span: 1, tables });
  }
  for (const parent of parents) {
    const end = parent.first + parent.span;
    const within = pieces.filter((p) => p.first >= parent.first && p.first < end);
    // an owner without events in the parent's hours has no pages there
    if (within.length === 0) continue;
    const tables = io.tables();
    for (const piece of within) for (const [family, table] of tables) table.absorb(piece.tables.get(family)!);
    const rest = pieces.filter((p) => p.first < parent.first || p.first >= end);
    // the pieces stay in hour order: the parent's takes the place of the first it absorbed
    const at = rest.findIndex((p) => p.first > parent.first);
    rest.splice(at < 0 ? rest.length : at, 0, { first: parent.first, span: parent.span, tables });
    pieces = rest;
    await add(parent, io.pages, owner, tables);
  }
}

async function add(
  unit: DayUnit,
  pages: (unit: DayUnit, owner: string, tables: OwnerTables) => CellPageDocument[],
  owner: string,
  tables: OwnerTables,
): Promise<void> {
  if (unit.error !== undefined) return;
  // one unit's pages failing gives up that unit alone
  await unit.writer.add(pages(unit, owner, tables)).catch((err: unknown) => (unit.error = err));
}
