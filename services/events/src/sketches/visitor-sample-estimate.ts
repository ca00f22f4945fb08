import { COUNTRY_CODES, countryCode, SLOTS, type VisitorSample } from './visitor-sample-model';

/*
 * Estimates from a bottom-K sample (docs/sketch-format.md, "Visitor sample"). With t the K-th
 * smallest hash and u = (t + 1) / 2^52 the share of the hash range at or below it, each of the
 * K - 1 visitors below t stands for 1/u visitors: a count c among them estimates c / u (the
 * rank-conditioned estimator of bottom-k sketches, unbiased; for all K - 1 it is the classic
 * (K - 1) / u). Its relative standard error is about sqrt((1 - u) / c): 1/sqrt(c) far past K,
 * less when the sample holds most of the visitors. Stated per answer, with c at least 1 (an
 * answer of 0 then says "below about one sampled visitor's weight").
 */

const HASH_SPAN = 2 ** 52;
const sqrt = Math.sqrt;
const round = Math.round;

export const FREQUENCY_BINS = [1, 2, 3, 5, 10] as const;
export type FrequencyBin = (typeof FREQUENCY_BINS)[number];

export interface Estimate {
  /** Visitors (rounded). */
  value: number;
  /** The value is the count itself, not an estimate. */
  exact: boolean;
  /** Relative standard error of value (0 when exact): about 95 % of answers lie within twice it. */
  relativeError: number;
}

export interface FrequencyAnswer {
  /** Distinct visitors reached (atLeast[1]). */
  reach: number;
  exact: boolean;
  /** All events of the cell, always exact. */
  impressions: number;
  /** impressions / reach, 0 without visitors; its relative error is reach's. */
  averageFrequency: number;
  /** Visitors reached at least 1, 2, 3, 5 and 10 times. */
  atLeast: Record<FrequencyBin, number>;
  /** Relative standard errors (0 when exact). */
  relativeError: { reach: number; averageFrequency: number; atLeast: Record<FrequencyBin, number> };
}

export interface OnTargetAnswer extends Estimate {
  /**
   * Visitors (estimated when sampled) whose events came from more than the 4 countries kept, none
   * of the kept ones a target: they may or may not be on target, and `value` leaves them out, so
   * the true count lies between value and value + undetermined (give or take the sampling error).
   * `exact` is false whenever this is not 0.
   */
  undetermined: number;
}

/** How many visitors the answers read: all when exact, else the K - 1 below the K-th hash. */
function used(s: VisitorSample): number {
  return s.sampled ? s.size - 1 : s.size;
}

/** The share of the hash range a sampled visitor is drawn from (1 when exact). */
function inclusion(s: VisitorSample): number {
  return s.sampled ? (s.hashes[s.size - 1]! + 1) / HASH_SPAN : 1;
}

function estimate(s: VisitorSample, count: number): Estimate {
  if (!s.sampled) return { value: count, exact: true, relativeError: 0 };
  const u = inclusion(s);
  return { value: round(count / u), exact: false, relativeError: sqrt((1 - u) / (count > 1 ? count : 1)) };
}

export function reachOf(s: VisitorSample): Estimate {
  return estimate(s, used(s));
}

export function frequencyOf(s: VisitorSample): FrequencyAnswer {
  const n = used(s);
  let two = 0;
  let three = 0;
  let five = 0;
  let ten = 0;
  const counts = s.counts;
  for (let i = 0; i < n; i++) {
    const c = counts[i]!;
    if (c >= 2) {
      two++;
      if (c >= 3) {
        three++;
        if (c >= 5) {
          five++;
          if (c >= 10) ten++;
        }
      }
    }
  }
  const bins = [n, two, three, five, ten].map((c) => estimate(s, c));
  const reach = bins[0]!;
  const atLeast = {} as Record<FrequencyBin, number>;
  const errors = {} as Record<FrequencyBin, number>;
  FREQUENCY_BINS.forEach((bin, i) => {
    atLeast[bin] = bins[i]!.value;
    errors[bin] = bins[i]!.relativeError;
  });
  return {
    reach: reach.value,
    exact: reach.exact,
    impressions: s.events,
    averageFrequency: reach.value === 0 ? 0 : s.events / reach.value,
    atLeast,
    relativeError: { reach: reach.relativeError, averageFrequency: reach.relativeError, atLeast: errors },
  };
}

/**
 * Visitors with at least one event from one of `targets` (ISO 3166-1 alpha-2 codes in upper
 * case; anything else throws RangeError). Events of unknown country count for no target.
 */
export function onTargetReachOf(s: VisitorSample, targets: ReadonlySet<string>): OnTargetAnswer {
  const wanted = new Uint8Array(COUNTRY_CODES + 1);
  for (const country of targets) wanted[countryCode(country)] = 1;
  const n = used(s);
  const countries = s.countries;
  let on = 0;
  let undetermined = 0;
  for (let i = 0; i < n; i++) {
    const d = i * SLOTS;
    let hit = wanted[countries[d]!]!;
    // most visitors have one country: the other slots only when there are some
    if (hit === 0 && countries[d + 1] !== 0) for (let k = 1; k < SLOTS; k++) hit |= wanted[countries[d + k]!]!;
    if (hit !== 0) on++;
    else if (s.more[i]) undetermined++;
  }
  const answer = estimate(s, on);
  const open = s.sampled ? round(undetermined / inclusion(s)) : undetermined;
  return { ...answer, exact: answer.exact && open === 0, undetermined: open };
}

/**
 * The events of the visitors onTargetReachOf counts (at least one event from one of `targets`):
 * a visitor's events are not told apart by country, so this is "impressions delivered to
 * on-target visitors". `undetermined`: the events of the visitors it calls undetermined. When
 * sampled, the sum over the sampled visitors scaled by 1/u, with the relative standard error of
 * that estimator, sqrt((1 - u) * sum(c²)) / sum(c) (which is onTargetReachOf's when every c is 1).
 */
export function onTargetEventsOf(s: VisitorSample, targets: ReadonlySet<string>): OnTargetAnswer {
  const wanted = new Uint8Array(COUNTRY_CODES + 1);
  for (const country of targets) wanted[countryCode(country)] = 1;
  const n = used(s);
  let on = 0;
  let squares = 0;
  let undetermined = 0;
  for (let i = 0; i < n; i++) {
    let hit = 0;
    for (let k = 0; k < SLOTS; k++) hit |= wanted[s.countries[i * SLOTS + k]!]!;
    const events = s.counts[i]!;
    if (hit !== 0) {
      on += events;
      squares += events * events;
    } else if (s.more[i]) undetermined += events;
  }
  if (!s.sampled) return { value: on, exact: undetermined === 0, relativeError: 0, undetermined };
  const u = inclusion(s);
  return {
    value: round(on / u),
    exact: false,
    relativeError: sqrt((1 - u) * (squares > 1 ? squares : 1)) / (on > 1 ? on : 1),
    undetermined: round(undetermined / u),
  };
}
