import { OWNERS } from './rollup-fixture';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'America/Santiago',
];
const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
/**
 * Measure metrics: sums and averages are exact; percentiles and shares come from sketches whose
 * merge is exact too (counts add up), so rollups and raw events give the same answer for all.
 */
const MEASURE_METRICS = [
  'engaged_ms_sum',
  'engaged_ms_avg',
  'scroll_depth_avg',
  'value_sum',
  'value_avg',
  'engaged_ms_p90',
  'scroll_depth_p50',
  'value_p99',
  'engaged_ms_gte_10000',
  'scroll_depth_gte_75',
];
const MAX_SPAN: Record<string, number> = {
  hour: 1.5 * 86_400_000,
  day: 60 * 86_400_000,
  week: 120 * 86_400_000,
  month: 200 * 86_400_000,
};

const pad = (n: number) => String(n).padStart(2, '0');
const spec = (t: number) => {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

/**
 * A random report body over [from, to): every filter, group_by (countries too), metadata, bounds
 * on second and hour edges or date-only, intervals in zones with DST and half-hour offsets, top-N,
 * distinct visitors (ranked by them too).
 */
export function randomReportBody(random: () => number, from: number, to: number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const some = <T>(xs: readonly T[]): T[] => {
    const out = xs.filter(() => random() < 0.4);
    return out.length > 0 ? out : [pick(xs)];
  };
  const body: Record<string, unknown> = { owner_id: pick(OWNERS) };
  if (random() < 0.25) body.name = some(['impression', 'click', 'view', 'share', 'nothing']);
  if (random() < 0.2) body.url = some(['', 'https://a.example/1', 'https://a.example/2', 'https://b.example/€']);
  if (random() < 0.2) body.content_id = some(['', 'c1', 'c2', 'c3']);
  if (random() < 0.25) body.device_type = some(['desktop', 'tablet', 'mobile']);
  // countries in either case, unknown, and one no event has
  if (random() < 0.15) body.country = some(['US', 'fr', 'XK', 'unknown', 'NG', 'ZZ']);
  if (random() < 0.5)
    body.group_by = pick([
      'url',
      'content_id',
      'content_id,url',
      'url,content_id',
      'country',
      'country',
      'url,country',
    ]);
  if (random() < 0.35) body.metadata = pick(['campaign', 'variant,campaign', 'missing', 'a.b,campaign']);

  const interval = random() < 0.45 ? pick(INTERVALS) : undefined;
  const zone = random() < 0.7 ? pick(ZONES) : undefined;
  const edge = () => {
    const r = random();
    const t = from + Math.floor(random() * (to - from));
    if (r < 0.3) return Math.floor(t / 3_600_000) * 3_600_000; // an hour edge
    if (r < 0.45) return Math.floor(t / 86_400_000) * 86_400_000; // a UTC midnight
    return Math.floor(t / 1000) * 1000; // any second
  };
  let a = edge();
  let b = edge();
  if (a > b) [a, b] = [b, a];
  if (interval && b - a > MAX_SPAN[interval]!) b = a + Math.floor(random() * MAX_SPAN[interval]!);
  const dateOnly = random() < 0.2;
  const open = !interval && random() < 0.1;
  if (!open || random() < 0.5) body.created__gte = dateOnly ? spec(a).slice(0, 10) : spec(a);
  if (!open || random() < 0.5) body.created__lte = dateOnly ? spec(b).slice(0, 10) : spec(b);
  if (interval) {
    body.interval = interval;
    if (random() < 0.3) body.fill_zeros = true;
  }
  if (zone) body.timezone = zone;
  const metrics: string[] = [];
  if (random() < 0.4) metrics.push(...pick([['count', 'uniques'], ['uniques'], ['uniques', 'count']]));
  if (random() < 0.3) metrics.push(...some(MEASURE_METRICS));
  // reach and frequency: a visitor sample merged in any order is the same sample, so equal from rollups and raw
  if (random() < 0.2) metrics.push('frequency');
  if (random() < 0.1 && !body.name) {
    metrics.push('conversion_rate');
    body.conversion = pick([
      { from: 'impression', to: 'click' },
      { from: 'view', to: 'share' },
      { from: 'nothing', to: 'click' },
    ]);
  }
  if (metrics.length > 0) body.metrics = random() < 0.5 ? metrics : metrics.join(',');
  if (random() < 0.2) {
    body.limit = 1 + Math.floor(random() * 5);
    if (random() < 0.5) body.order_by = pick(['value', 'name', ...metrics.filter((m) => m !== 'count')]);
    if (random() < 0.3) body.order = pick(['asc', 'desc']);
  }
  return body;
}
