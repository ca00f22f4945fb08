// What `pnpm bench:report` and `pnpm bench:peer` share: the settings from the environment, the
// days the events span, and the report scenarios, so both benches ask the same questions of the
// same data. Every scenario has a `key` (bench:peer finds its ClickHouse SQL by it, BENCH_PROFILE
// names one); those with a `target` are the ones bench:report holds to a latency bound; those
// with `tallied` span the whole month, and bench:report checks their every row against the
// generator's own tallies (report-tallies.mjs).
import { urlNoiseSetting } from './report-web.mjs';

const DAY_MS = 86_400_000;

/** The settings both benches read (BENCH_SIZES, BENCH_DAYS, ...), and the days the events span. */
export function reportBenchSettings(env = process.env) {
  const days = Number(env.BENCH_DAYS ?? 30);
  // recent days (the builder never rebuilds days past raw retention): the `days` days ending 3 days ago
  const firstDay = Math.floor(Date.now() / DAY_MS) * DAY_MS - (days + 3) * DAY_MS;
  return {
    sizes: (env.BENCH_SIZES ?? env.BENCH_EVENTS ?? '1000000,5000000').split(',').map(Number),
    days,
    urls: Number(env.BENCH_URLS ?? 2000),
    runs: Number(env.BENCH_RUNS ?? 20),
    batch: Number(env.BENCH_BATCH ?? 500),
    writers: Number(env.BENCH_WRITERS ?? 2),
    firstDay,
    /** BENCH_URL_NOISE (on unless "0"): page URLs as browsers send them, and attribution (report-web.mjs). */
    urlNoise: urlNoiseSetting(env),
    /** Day `n` of the span as YYYY-MM-DD (UTC). */
    day: (n) => new Date(firstDay + n * DAY_MS).toISOString().slice(0, 10),
  };
}

/**
 * The campaign bench:report asks a scorecard of (the registry's record, as management would
 * publish it): 50 of the reported owner's pages, from the most read to the long tail (every
 * tenth of the first 500), over the whole span, aimed at Germany and Austria.
 */
export function benchCampaign({ days, day }, ownerId, publisher = 'publisher.example') {
  const urls = Array.from({ length: 50 }, (_, i) => `https://${publisher}/article/${1 + i * 10}`).sort();
  return {
    token: 'bench-spring-launch',
    owner_id: ownerId,
    revision: 1,
    name: 'Spring launch',
    urls,
    start_date: day(0),
    end_date: day(days - 1),
    timezone: 'UTC',
    reach: 100_000,
    objective: 'awareness',
    target_countries: ['AT', 'DE'],
    target_source: 'campaign',
  };
}

/** The report requests both benches time, in the order they print them. */
export function reportScenarios({ days, day }) {
  const oneDay = { created__gte: `${day(14)} 00:00:00`, created__lte: `${day(14)} 23:59:59` };
  const month = { created__gte: `${day(0)} 00:00:00`, created__lte: `${day(days - 1)} 23:59:59` };
  const nySeries = { created__gte: day(1), created__lte: day(days - 1), interval: 'day', timezone: 'America/New_York' };
  return [
    { name: '1 day, by name', body: oneDay, key: 'day-name' },
    { name: '1 day, group_by content_id,url', body: { ...oneDay, group_by: 'content_id,url' }, key: 'day-grouped' },
    { name: `${days} days, by name`, body: month, target: '<= 50 ms at 5M', key: 'name' },
    {
      name: `${days} days, group_by content_id,url`,
      body: { ...month, group_by: 'content_id,url' },
      target: '<= 200 ms at 5M',
      key: 'grouped',
    },
    {
      name: `${days} days, metadata campaign,variant`,
      body: { ...month, metadata: 'campaign,variant' },
      key: 'metadata-name',
    },
    {
      name: `${days} days, group_by url + metadata`,
      body: { ...month, group_by: 'url', metadata: 'campaign,variant' },
      key: 'metadata-url',
    },
    {
      name: `${days} days, group_by url, top 10 by value`,
      body: { ...month, group_by: 'url', limit: 10 },
      key: 'top-url',
    },
    {
      name: `${days} days, interval day, America/New_York`,
      body: nySeries,
      target: '<= 100 ms at 5M',
      key: 'series',
    },
    {
      name: `${days} days, uniques by name`,
      body: { ...month, metrics: 'count,uniques' },
      target: '<= 50 ms at 5M',
      key: 'uniques-name',
    },
    {
      name: `${days} days, uniques, group_by url`,
      body: { ...month, metrics: 'count,uniques', group_by: 'url' },
      target: '<= 300 ms at 5M',
      key: 'uniques-url',
    },
    {
      name: `${days} days, uniques, interval day, America/New_York`,
      body: { ...nySeries, metrics: 'count,uniques' },
      target: '<= 100 ms at 5M',
      key: 'uniques-series',
    },
    {
      name: `${days} days, p90 engaged time, group_by content_id`,
      body: { ...month, name: 'view', group_by: 'content_id', metrics: 'count,engaged_ms_p90' },
      target: '<= 100 ms at 5M',
      key: 'p90-content',
    },
    {
      name: `${days} days, engaged time avg, p50, share >= 10 s, by name`,
      body: { ...month, name: 'view', metrics: 'count,engaged_ms_avg,engaged_ms_p50,engaged_ms_gte_10000' },
      key: 'attention-name',
    },
    {
      name: `${days} days, click-through rate, interval day, America/New_York`,
      body: {
        ...nySeries,
        name: ['impression', 'click'],
        metrics: 'count,conversion_rate',
        conversion: { from: 'impression', to: 'click' },
      },
      key: 'ctr-series',
    },
    {
      name: `${days} days, uniques, group_by utm_campaign`,
      body: { ...month, metrics: 'count,uniques', group_by: 'utm_campaign' },
      target: '<= 100 ms at 5M',
      key: 'uniques-campaign',
      tallied: true,
    },
    {
      name: `${days} days, uniques, group_by country`,
      body: { ...month, metrics: 'count,uniques', group_by: 'country' },
      target: '<= 100 ms at 5M',
      key: 'uniques-country',
      tallied: true,
    },
    {
      name: `${days} days, count, filter utm_source=facebook, group_by referrer`,
      body: { ...month, utm_source: 'facebook', group_by: 'referrer' },
      key: 'source-referrer',
      tallied: true,
    },
    {
      name: `${days} days, top 10 countries by uniques (impressions)`,
      body: {
        ...month,
        name: 'impression',
        metrics: 'count,uniques',
        group_by: 'country',
        order_by: 'uniques',
        limit: 10,
      },
      key: 'top-countries',
      tallied: true,
    },
    {
      // bench:report only (route: the scorecard's own); bench:peer leaves such scenarios out
      name: `${days}-day campaign scorecard (50 content URLs)`,
      body: { campaign: 'bench-spring-launch' },
      route: 'scorecard',
      target: '<= 150 ms at 5M',
      key: 'scorecard',
    },
  ];
}

/** Milliseconds as the tables print them. */
export const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** The nearest-rank quantile `q` of `xs`. */
export const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
