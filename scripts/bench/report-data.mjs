// Event mix of `pnpm bench:report` (see report.mjs): deterministic, so every run loads the same data.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32, zipf } from './report-web-mix.mjs';
import { PUBLISHER, countryOf, webTraffic } from './report-web.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const { v7 } = require(require.resolve('uuid', { paths: [path.join(root, 'services/events')] }));

export const OWNERS = ['100000000000001', '100000000000002', '100000000000003', '100000000000004', '100000000000005'];
// the reported owner (OWNERS[0]) has about 20 % of the events
const OWNER_WEIGHTS = [0.2, 0.2, 0.2, 0.2, 0.2];
const NAMES = [
  ['impression', 0.7],
  ['click', 0.2],
  ['view', 0.07],
  ['share', 0.03],
];
const CAMPAIGNS = Array.from({ length: 10 }, (_, i) => `campaign-${i}`);
const DEVICES = ['desktop', 'desktop', 'mobile', 'mobile', 'mobile', 'tablet'];

/** Distinct visitors per event: 1M events come from about 250,000 visitors (4 events each on average). */
const VISITOR_SHARE = 0.25;

/** Visitor i's hash: 52 well-mixed bits, as ingest's HMAC gives (two 26-bit halves of a seeded generator). */
function visitorHash(i) {
  const r = mulberry32(i * 2 + 7);
  return Math.floor(r() * 2 ** 26) * 2 ** 26 + Math.floor(r() * 2 ** 26);
}

/** A standard normal sample (Box-Muller). */
export function gaussian(rand) {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/**
 * Events in time order over `days` UTC days from `firstDay`, as the consumer would receive them:
 * URLs Zipf-distributed (s = 1) over `urls` pages, one content_id per page, 5 owners, 4 names,
 * 3 device types, 2 % bots, 3 metadata keys, visitors uniform over a pool of a quarter as many
 * as events (VISITOR_SHARE); views carry engaged time (log-normal around 20 s) and scroll depth,
 * one click in ten a conversion value. Each visitor has a country (report-web.mjs). With `noise`,
 * the page URL is what a browser sends (campaign tags, click ids, fragments, ...) and the event is
 * stored as ingest stores it (canonical URL, UTM fields, referring host: report-web.mjs); without,
 * the URL is the clean one, already canonical, and there is no attribution. The rest is the same
 * event either way, draw for draw. `expected` counts what a report of OWNERS[0] returns; `stats`
 * (with `noise`) counts what the noise did.
 */
export function* eventBatches({ total, days, firstDay, urls, batch, seed = 42, noise = false, stats }, expected) {
  const rand = mulberry32(seed);
  // visitors from a generator of their own, so the rest of the data is what it was before visitors
  const visitorRand = mulberry32(seed + 1);
  const visitors = Math.max(1, Math.round(total * VISITOR_SHARE));
  // measures from a generator of their own too: views carry engaged time and scroll depth, some clicks a value
  const measureRand = mulberry32(seed + 2);
  const measuresOf = (name) => {
    if (name === 'view')
      return {
        // log-normal around 20 s, capped like the snippet caps a page view
        engaged_ms: Math.min(1_800_000, Math.round(20_000 * Math.exp(1.2 * gaussian(measureRand)))),
        scroll_depth: Math.floor(measureRand() * 101),
      };
    if (name === 'click' && measureRand() < 0.1) return { value: 100 + Math.floor(measureRand() * 20_000) };
    return undefined;
  };
  const pickVisitor = () => Math.floor(visitorRand() * visitors);
  // the URL noise and attribution from a generator of their own as well
  const web = noise ? webTraffic({ seed, stats }) : undefined;
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const pageOf = zipf(urls, 1, rand);
  const pickName = () => {
    let r = rand();
    for (const [name, p] of NAMES) if ((r -= p) < 0) return name;
    return NAMES[0][0];
  };
  const pickOwner = () => {
    let r = rand();
    for (let i = 0; i < OWNERS.length; i++) if ((r -= OWNER_WEIGHTS[i]) < 0) return OWNERS[i];
    return OWNERS[0];
  };
  const span = days * 86_400_000;
  let docs = [];
  for (let i = 0; i < total; i++) {
    const created = firstDay + Math.floor((i / total) * span);
    const page = pageOf();
    let visitor;
    const doc = {
      _id: v7({ msecs: created }),
      owner_id: pickOwner(),
      name: pickName(),
      url: `https://${PUBLISHER}/article/${page}`,
      content_id: `content-${page}`,
      device_type: pick(DEVICES),
      bot: rand() < 0.02,
      metadata: {
        campaign: pick(CAMPAIGNS),
        variant: rand() < 0.5 ? 'a' : 'b',
        // `utm_source` until attribution existed: a pixel parameter of that name is now the
        // event's utm_source, which would override the page URL's (same length, same values)
        ad_channel: pick(['news', 'social', 'mail']),
      },
      created: new Date(created),
      visitor: visitorHash((visitor = pickVisitor())),
    };
    const measures = measuresOf(doc.name);
    if (measures) doc.measures = measures;
    const country = countryOf(visitor);
    if (country !== undefined) doc.country = country;
    if (web) web(doc, i, page);
    if (doc.owner_id === OWNERS[0] && !doc.bot) expected.set(doc.name, (expected.get(doc.name) ?? 0) + 1);
    // a batch never spans two day buckets (the consumer writes one bucket per insert)
    if (
      docs.length > 0 &&
      (docs.length >= batch || Math.floor(created / 86_400_000) !== Math.floor(docs[0].created.getTime() / 86_400_000))
    ) {
      yield docs;
      docs = [];
    }
    docs.push(doc);
  }
  if (docs.length > 0) yield docs;
}
