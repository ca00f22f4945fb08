#!/usr/bin/env node
// `pnpm bench:page-url`: what canonicalising a page URL costs per pixel hit. For each URL shape a
// hit carries (a plain page, a campaign link with UTM values and a click id, a long query, an IDN
// host), nanoseconds per call of `new URL()` alone (the floor: parsing is most of the work) and of
// `canonicalPageUrl()`, the variants alternating A B A B in one run; the median of the rounds.
// With BENCH_COMPARE_DIST=<an earlier build's services/events/dist> (e.g. the one bench:pipeline
// builds into .cache/bench-before), the pixel's whole parameter step too, `parsePixelEvent` of
// that build against this one's, on the same hits: what canonical URLs and attribution add to a
// pixel hit, end to end, without the noise of the pipeline.
// BENCH_ROUNDS (default 7) rounds of BENCH_CALLS (default 200,000) calls each. Each shape is 4,096
// distinct strings (a per-visitor fbclid, fragment or page number, as real traffic has; one string
// over and over would measure caches, not the work), except the plain page: 32 articles read
// over and over.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const { canonicalPageUrl, referrerHost } = require(path.join(root, 'packages/contracts/dist'));

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);

const longQuery = Array.from({ length: 40 }, (_, i) => `f${i}=${'v'.repeat(30)}`).join('&');
const SHAPES = {
  'plain page (32 articles)': 'https://news.example/2026/11/spring-guide',
  'campaign link (utm x3, fbclid, fragment, slash)':
    'https://news.example/2026/11/spring-guide/?utm_source=facebook&utm_medium=paid_social&utm_campaign=spring&fbclid=IwAR2xYzA1b2C3d4E5f6G7h8I9j0kLmNoPqRsTuVwXyZ#section-2',
  'content query (p, id) + gclid': 'https://shop.example/item?id=7&p=42&gclid=Cj0KCQiA1234567890abcdef',
  'long query (40 parameters, 1.5 KB)': `https://shop.example/search?${longQuery}`,
  'IDN host, encoded path': 'https://bücher.example/b%c3%bccher/neu/?q=sch%c3%b6n+und+gut',
};

const variants = {
  'new URL() (floor)': (u) => new URL(u).href.length,
  canonicalPageUrl: (u) => {
    const r = canonicalPageUrl(u);
    return r.ok ? r.url.length : 0;
  },
};

// a pixel hit's parameters as the ingest has them (parsed once per string: only the event step is timed)
const compareDist = process.env.BENCH_COMPARE_DIST;
if (compareDist) {
  const hit = (dist) => {
    const { parsePixelEvent } = require(path.join(dist, 'ingest/pixel-params.js'));
    const { parseParams } = require(path.join(dist, 'ingest/pixel-request.js'));
    const cache = new Map();
    return (u) => {
      let params = cache.get(u);
      if (!params) {
        params = parseParams(
          `owner_id=123456789012345&name=impression&content_id=article-1&url=${encodeURIComponent(u)}`,
        );
        cache.set(u, params);
      }
      return parsePixelEvent(params, undefined).url.length;
    };
  };
  variants['parsePixelEvent (before)'] = hit(path.resolve(compareDist));
  variants['parsePixelEvent (after)'] = hit(path.join(root, 'services/events/dist'));
}

const VARIANTS = 4096;
/** 4,096 distinct strings of one shape (more than the ingest keeps): a number changed in its last parameter or fragment. */
function distinct(url, pages) {
  return Array.from({ length: VARIANTS }, (_, i) =>
    pages ? `${url}-${i % pages}` : url.includes('#') || url.includes('?') ? `${url}${i}` : `${url}-${i}`,
  );
}

function time(fn, urls) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) sink += fn(urls[i & (VARIANTS - 1)]);
  const ns = Number(process.hrtime.bigint() - start) / CALLS;
  if (sink < 0) console.log(sink);
  return ns;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.error(`[bench] ${ROUNDS} rounds x ${CALLS} calls per shape and variant, alternating`);
const rows = [];
for (const [shape, url] of Object.entries(SHAPES)) {
  const runs = Object.fromEntries(Object.keys(variants).map((v) => [v, []]));
  const urls = distinct(url, shape.startsWith('plain page') ? 32 : undefined);
  for (const fn of Object.values(variants)) time(fn, urls); // warm-up
  for (let r = 0; r < ROUNDS; r++) for (const [name, fn] of Object.entries(variants)) runs[name].push(time(fn, urls));
  rows.push([shape, ...Object.keys(variants).map((v) => median(runs[v]))]);
}
const hosts = Array.from({ length: VARIANTS }, (_, i) => `www${i}.google.com`);
const referrer = median(Array.from({ length: ROUNDS }, () => time((h) => referrerHost(h).length, hosts)));

console.log(`\nnanoseconds per call (median of ${ROUNDS} rounds)\n`);
const extra = compareDist ? ' | parsePixelEvent after - before' : '';
console.log(`| URL shape | ${Object.keys(variants).join(' | ')} | canonicalPageUrl - new URL()${extra} |`);
console.log(
  `|---|${Object.keys(variants)
    .map(() => '---|')
    .join('')}---|${compareDist ? '---|' : ''}`,
);
for (const [shape, floor, full, before, after] of rows) {
  const cells = [floor, full, ...(compareDist ? [before, after] : [])].map((ns) => ns.toFixed(0)).join(' | ');
  const added = compareDist ? ` ${(after - before).toFixed(0)} |` : '';
  console.log(`| ${shape} | ${cells} | ${(full - floor).toFixed(0)} |${added}`);
}
console.log(`\nreferrerHost('wwwN.google.com'): ${referrer.toFixed(0)} ns per call`);
