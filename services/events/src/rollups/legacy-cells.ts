import { MEASURE_NAMES } from '@cm/contracts';
import type { Document } from 'mongodb';
import { emptyCellValue, type CellValue } from '../metrics/registry';
import { exactOf, type ExactSum } from '../metrics/exact-sum';
import type { Latest } from '../metrics/latest-aggregate';
import { decodeSketch } from '../sketches/sketch-codec';
import { QuantileBins } from '../sketches/quantile-bins';
import { decodeQuantiles } from '../sketches/quantile-sketch';
import { StoredFormatError } from '../metrics/byte-codec';

/*
 * Cells of the first format (a release before binary pages): documents per owner and name whose
 * `e` is JSON text of entries `[content_id, url, [counts per device]]` and whose side fields are
 * JSON text parallel to them: `l` the latest event per device, `u` visitor sketches per device in
 * their text form, `s` measure counts and sums per device, `q` quantile sketches per device
 * (base64url). Only the fine documents (`k: 'f'`) are read: every total follows from them. What
 * this file reads is all that is left of that format; it converts a unit whose raw events are
 * gone (rollups kept longer than raw events) instead of rebuilding it.
 */

/** One fine entry of a first-format document as a cell, and its keys. */
export interface LegacyEntry {
  name: string;
  contentId: string;
  url: string;
  value: CellValue;
}

/** The fine entries of a first-format document (none for its other kinds). */
export function legacyEntries(doc: Document): LegacyEntry[] {
  if (doc.k !== 'f') return [];
  const entries = parse(doc.e) as unknown[];
  const side = (field: string) => (typeof doc[field] === 'string' ? (parse(doc[field]) as unknown[]) : []);
  const latest = side('l');
  const visitors = side('u');
  const sums = side('s');
  const quantiles = side('q');
  return entries.map((raw, i) => {
    const [contentId, url, counts] = raw as [unknown, unknown, unknown];
    const value = emptyCellValue();
    for (let d = 0; d < 3; d++) {
      value.count[d] = countOf(counts, d);
      value.latest[d] = latestOf(latest[i], d);
      value.uniques[d] = decodeSketch(Array.isArray(visitors[i]) ? (visitors[i] as unknown[])[d] : undefined);
      value.sums[d] = sumsOf(sums[i], d);
      value.quantiles[d] = quantilesOf(quantiles[i], d);
    }
    return { name: String(doc.n ?? ''), contentId: String(contentId ?? ''), url: String(url ?? ''), value };
  });
}

function parse(text: unknown): unknown {
  if (typeof text !== 'string') throw new StoredFormatError('first-format cell field is not text');
  return JSON.parse(text) as unknown;
}

function countOf(counts: unknown, d: number): number {
  const n: unknown = Array.isArray(counts) ? counts[d] : 0;
  if (!(typeof n === 'number' && Number.isSafeInteger(n) && n >= 0))
    throw new StoredFormatError('bad first-format count');
  return n;
}

function latestOf(stored: unknown, d: number): Latest | null {
  const item: unknown = Array.isArray(stored) ? stored[d] : null;
  if (!Array.isArray(item)) return null;
  const [created, id, metadata] = item as [unknown, unknown, unknown];
  const strings: Record<string, string> = {};
  if (metadata && typeof metadata === 'object')
    for (const [k, v] of Object.entries(metadata)) if (typeof v === 'string') strings[k] = v;
  return [Number(created), String(id), strings];
}

function sumsOf(stored: unknown, d: number): ExactSum[] {
  const item: unknown = Array.isArray(stored) ? stored[d] : 0;
  const out = new Array<ExactSum>(2 * MEASURE_NAMES.length).fill(0);
  if (!Array.isArray(item)) return out;
  item.forEach((x: unknown, i) => {
    if (typeof x === 'number' && Number.isInteger(x) && x >= 0) out[i] = exactOf(BigInt(x));
    else if (typeof x === 'string' && /^\d{1,40}$/.test(x)) out[i] = exactOf(BigInt(x));
    else throw new StoredFormatError('bad first-format measure sum');
  });
  return out;
}

function quantilesOf(stored: unknown, d: number): Array<QuantileBins | null> {
  const item: unknown = Array.isArray(stored) ? stored[d] : 0;
  const out: Array<QuantileBins | null> = MEASURE_NAMES.map(() => null);
  if (!Array.isArray(item)) return out;
  item.forEach((x: unknown, m) => {
    if (typeof x !== 'string' || m >= MEASURE_NAMES.length) return;
    const bins = new QuantileBins();
    bins.addSketch(decodeQuantiles(Buffer.from(x, 'base64url')));
    out[m] = bins;
  });
  return out;
}
