import { Binary, type Document } from 'mongodb';
import { StoredFormatError } from '../../src/metrics/byte-codec';
import { AGGREGATE_NAMES } from '../../src/metrics/registry';
import type { CellStore } from '../../src/rollups/cell-store';
import { familyById } from '../../src/rollups/families';
import type { CellPageDocument } from '../../src/rollups/page-layout';
import { DecodedPage } from '../../src/rollups/page-reader';

/**
 * How a stored page is damaged: its column cut short, its leading byte one no format writes
 * (a wrong version), its bytes replaced by noise, or the whole page replaced by a document of
 * another format (the first cell format: entries as plain fields, no binary columns).
 */
export type Damage = 'truncated' | 'version' | 'random' | 'foreign';
export const DAMAGES: readonly Damage[] = ['truncated', 'version', 'random', 'foreign'];

/** Whether a stored page decodes: its keys and every column its family keeps, devices included (all a report or a build may read). */
export function decodes(doc: CellPageDocument): boolean {
  try {
    const page = new DecodedPage(doc);
    for (const name of familyById(doc.f)?.aggregates ?? AGGREGATE_NAMES) page.load(name, true, doc, () => 0);
    return true;
  } catch (err) {
    if (err instanceof StoredFormatError) return false;
    throw err;
  }
}

function damaged(doc: CellPageDocument, column: string, damage: Damage, random: () => number): Document {
  if (damage === 'foreign')
    return {
      _id: doc._id,
      g: doc.g,
      o: doc.o,
      f: doc.f,
      p: doc.p,
      cells: [{ name: 'click', keys: ['https://a.example/1'], count: [3, 0, 0] }],
    };
  const bytes = Buffer.from((doc[column] as Binary).buffer.subarray(0, (doc[column] as Binary).position));
  let out: Buffer;
  if (damage === 'truncated') out = bytes.subarray(0, Math.floor(bytes.length / 2));
  else if (damage === 'version') {
    out = Buffer.from(bytes);
    out[0] = 0xff;
  } else out = Buffer.from(Array.from({ length: Math.max(1, bytes.length) }, () => Math.floor(random() * 256)));
  return { ...doc, [column]: new Binary(out) };
}

/**
 * Damages the pages of one owner in one generation (those of `families`, default all) that hold
 * `column`, each so that it does not decode (checked: noise that happens to decode is drawn
 * again). Returns the ids of the pages damaged.
 */
export async function damagePages(
  cells: CellStore,
  where: { g: string; owner: string; families?: readonly string[] },
  column: string,
  damage: Damage,
  random: () => number,
): Promise<string[]> {
  const docs = await cells.collection.find({ g: where.g, o: where.owner }).toArray();
  const ids: string[] = [];
  for (const doc of docs) {
    if (where.families && !where.families.includes(doc.f)) continue;
    if (damage !== 'foreign' && !(doc[column] instanceof Binary)) continue;
    let next = damaged(doc, column, damage, random);
    for (let attempt = 0; decodes(next as CellPageDocument); attempt++) {
      if (attempt > 20) throw new Error(`could not damage ${doc._id} so that it fails to decode`);
      next = damaged(doc, column, 'random', random);
    }
    await cells.collection.replaceOne({ _id: doc._id }, next as CellPageDocument);
    ids.push(doc._id);
  }
  return ids;
}
