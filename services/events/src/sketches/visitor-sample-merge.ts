import { addCountry } from './visitor-countries';
import {
  checkedTotal,
  checkEvents,
  checkHash,
  cloneSample,
  countryCode,
  ensureCapacity,
  VISITOR_SAMPLE,
  type VisitorSample,
} from './visitor-sample-model';
import { combine, copyVisitor, lowerBound, moveBlock, upperBound, writeNew } from './visitor-slots';

/*
 * Why a merged sample is exact for every visitor it keeps (coordinated sampling). Write B(X) for
 * the K smallest hashes of a set X of visitors (all of X when it has at most K). A sample of X
 * holds B(X), each visitor with its count and countries summed over all of X's rows. Let h be in
 * B(A ∪ B): fewer than K visitors of A ∪ B have a smaller hash, so fewer than K of A do, and if h
 * is in A it is in B(A); the same for B. So h was kept, with its whole count, by every part that
 * contains it, and summing the parts' counts for h gives its exact total. And B(A ∪ B) is the K
 * smallest of B(A) ∪ B(B), which is what the merge computes: by induction over any tree of merges
 * and added rows, a sample is a function of its visitors' rows alone, whatever the order
 * (associative and commutative, the empty sample neutral; not idempotent: counts add up).
 */

const K = VISITOR_SAMPLE.k;
const MAX_COUNT = VISITOR_SAMPLE.maxCount;
// no global lookups in the hot paths: inside a vm context (Jest) each costs about 200 ns
const min = Math.min;
/**
 * Below one part visitor in SPARSE_RATIO target visitors, a part is inserted by block moves: a
 * report's hourly cells into its month 4 to 16 times faster than one pass (docs/benchmarks.md).
 */
const SPARSE_RATIO = 16;
/** The sparse path's plan: where each new visitor goes in the target, and where it is in the part. */
const AT = new Int32Array(K / SPARSE_RATIO + 1);
const FROM = new Int32Array(K / SPARSE_RATIO + 1);

/** One raw row into `target` (the caller's own): a visitor with `events` events from `country`. */
export function addVisitor(
  target: VisitorSample,
  hash: number,
  events: number,
  country?: string | null,
): VisitorSample {
  checkHash(hash);
  checkEvents(events);
  const code = country === undefined || country === null ? 0 : countryCode(country);
  target.events = checkedTotal(target.events + events);
  const t = target;
  const n = t.size;
  if (n === K && hash > t.hashes[n - 1]!) {
    t.sampled = true;
    return t;
  }
  const at = lowerBound(t.hashes, 0, n, hash);
  if (at < n && t.hashes[at] === hash) {
    const count = t.counts[at]! + events;
    t.counts[at] = count > MAX_COUNT ? MAX_COUNT : count;
    addCountry(t.countries, t.more, at, code);
    return t;
  }
  if (n === K) {
    t.sampled = true;
    moveBlock(t, at + 1, at, n - 1); // the largest hash leaves
  } else {
    ensureCapacity(t, n + 1);
    moveBlock(t, at + 1, at, n);
    t.size = n + 1;
  }
  writeNew(t, at, hash, events > MAX_COUNT ? MAX_COUNT : events, code);
  return t;
}

/**
 * Merges `part` into `target` (the caller's own; `part` is only read) and returns target. The
 * cost follows what enters: a part with no hash below a full target's largest costs a binary
 * search; a few visitors are placed by binary search and block moves; otherwise one linear pass
 * from where the part's smallest hash lands. Allocates only to grow target.
 */
export function mergeSampleInto(target: VisitorSample, part: VisitorSample): VisitorSample {
  const p = part === target ? cloneSample(part, part.size) : part;
  target.events = checkedTotal(target.events + p.events);
  const t = target;
  const tn = t.size;
  const pn = p.size;
  let sampled = t.sampled || p.sampled;
  // a full target keeps nothing above its largest hash (a part visitor there is a new one: sampled)
  const pEnd = tn === K ? upperBound(p.hashes, pn, t.hashes[tn - 1]!) : pn;
  if (pEnd < pn) sampled = true;
  if (pEnd > 0) {
    if (pEnd * SPARSE_RATIO <= tn) sampled = mergeSparse(t, p, pEnd) || sampled;
    else sampled = mergeLinear(t, p, pEnd) || sampled;
  }
  t.sampled = sampled;
  return t;
}

/** Places p's first pEnd visitors one by one (binary search, then block moves). True if some left. */
function mergeSparse(t: VisitorSample, p: VisitorSample, pEnd: number): boolean {
  const tn = t.size;
  const th = t.hashes;
  let added = 0;
  let low = 0;
  let cut = false;
  for (let j = 0; j < pEnd; j++) {
    const hash = p.hashes[j]!;
    const at = lowerBound(th, low, tn, hash);
    low = at;
    if (at < tn && th[at] === hash) {
      combine(t, at, t, at, p, j);
      continue;
    }
    if (at + added >= K) {
      cut = true;
      break;
    }
    AT[added] = at;
    FROM[added++] = j;
  }
  const m = min(K, tn + added);
  ensureCapacity(t, m);
  // backwards: the target visitors between two new ones move right by the new ones before them
  for (let q = added - 1; q >= 0; q--) {
    const start = AT[q]!;
    const end = min(q === added - 1 ? tn : AT[q + 1]!, m - q - 1);
    if (end > start) moveBlock(t, start + q + 1, start, end);
    copyVisitor(t, start + q, p, FROM[q]!);
  }
  t.size = m;
  return cut || tn + added > K;
}

/** Merges p's first pEnd visitors in one pass from the end. True if some visitor was left out. */
function mergeLinear(t: VisitorSample, p: VisitorSample, pEnd: number): boolean {
  const th = t.hashes;
  const ph = p.hashes;
  const tn = t.size;
  const start = lowerBound(th, 0, tn, ph[0]!);
  // first count: how far each list reaches in the K smallest of the union
  let i = start;
  let j = 0;
  let m = start;
  while (m < K && i < tn && j < pEnd) {
    const x = th[i]!;
    const y = ph[j]!;
    if (x <= y) i++;
    if (y <= x) j++;
    m++;
  }
  if (m < K && i < tn) {
    const take = min(tn - i, K - m);
    i += take;
    m += take;
  } else if (m < K && j < pEnd) {
    const take = min(pEnd - j, K - m);
    j += take;
    m += take;
  }
  const cut = i < tn || j < pEnd;
  ensureCapacity(t, m);
  // then place from the end: a target visitor never moves left, so nothing is overwritten unread
  let w = m - 1;
  i--;
  j--;
  // the arrays in locals and the moves written out (4 country slots: SLOTS): this loop is most of
  // a large merge's time
  const hashes = t.hashes;
  const counts = t.counts;
  const countries = t.countries;
  const more = t.more;
  const pc = p.counts;
  const pk = p.countries;
  const pm = p.more;
  while (j >= 0) {
    const y = ph[j]!;
    const x = i >= 0 ? hashes[i]! : -1;
    if (x === y) {
      combine(t, w--, t, i--, p, j--);
      continue;
    }
    const d = w * 4;
    if (x > y) {
      const o = i * 4;
      hashes[w] = x;
      counts[w] = counts[i]!;
      more[w] = more[i]!;
      countries[d] = countries[o]!;
      countries[d + 1] = countries[o + 1]!;
      countries[d + 2] = countries[o + 2]!;
      countries[d + 3] = countries[o + 3]!;
      i--;
    } else {
      const o = j * 4;
      hashes[w] = y;
      counts[w] = pc[j]!;
      more[w] = pm[j]!;
      countries[d] = pk[o]!;
      countries[d + 1] = pk[o + 1]!;
      countries[d + 2] = pk[o + 2]!;
      countries[d + 3] = pk[o + 3]!;
      j--;
    }
    w--;
  }
  t.size = m;
  return cut;
}
