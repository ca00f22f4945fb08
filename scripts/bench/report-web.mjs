// What bench:report's events carry from the real web (report-data.mjs calls it for every event):
// the page URL as the browser sends it (campaign tags, click ids, fragments, slash and host-case
// variants), the referring page, and the visitor's country. Then the event is stored as ingest
// stores it: the built pixel's own parameter step (parsePixelEvent: canonical URL, UTM values,
// referring host) turns the hit into `url`, `utm_*` and `referrer`, so the bench measures what
// production would hold. BENCH_URL_NOISE=0 keeps the same events with clean URLs and no
// attribution (the countries stay: they are no URL noise).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNTRIES, ORGANIC_REFERRERS, SOURCES, CAMPAIGNS, mulberry32, pickWeighted, zipf } from './report-web-mix.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const { parsePixelEvent } = require(path.join(root, 'services/events/dist/ingest/pixel-params'));
const { ATTRIBUTION_FIELDS } = require(path.join(root, 'packages/contracts/dist'));

/** The publisher's host, as the clean URLs have always had it. */
export const PUBLISHER = 'publisher.example';
/** Share of page views whose URL carries campaign tags. */
const TAGGED = 0.4;
const FRAGMENTS = ['comments', 'top', 'section-2', 'share', 'newsletter-signup'];
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** BENCH_URL_NOISE: on unless "0". */
export const urlNoiseSetting = (env = process.env) => env.BENCH_URL_NOISE !== '0';

/** Visitor `index`'s country (ISO alpha-2), or undefined (unknown: no field), the same in every mode and run. */
const countryPick = pickWeighted(COUNTRIES);
export function countryOf(index) {
  return countryPick(mulberry32(index * 2 + 8)());
}

/**
 * The web side of events, from a generator of its own (`seed`), so the rest of the mix stays the
 * same draw for draw. `stats`, when given, counts what the noise did (raw URLs before
 * canonicalisation, click ids sent), for bench:noise-bytes.
 */
export function webTraffic({ seed, stats }) {
  const rand = mulberry32(seed + 3);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const campaignOf = zipf(CAMPAIGNS.length, 1.1, rand);
  const source = pickWeighted(SOURCES.map((s) => [s, s.weight]));
  const organic = pickWeighted(ORGANIC_REFERRERS);
  const clickId = (n) => {
    // unique per event: the event's number in base 36, then random characters as platforms send them
    let id = n.toString(36);
    const length = 40 + Math.floor(rand() * 50);
    while (id.length < length) id += ID_CHARS[Math.floor(rand() * ID_CHARS.length)];
    return id;
  };
  const escapeTerm = (term) => (rand() < 0.5 ? term.replace(/ /g, '+') : encodeURIComponent(term));

  /** The URL and referrer of event number `n` on page `page`, as the browser sends them. */
  function hit(n, page) {
    const roll = rand();
    const host = roll < 0.01 ? PUBLISHER.toUpperCase() : roll < 0.06 ? 'Publisher.Example' : PUBLISHER;
    let url = `https://${host}/article/${page}${rand() < 0.08 ? '/' : ''}`;
    const query = [];
    let referrer;
    let clid;
    if (rand() < TAGGED) {
      const s = source(rand());
      query.push(`utm_source=${s.source}`, `utm_medium=${s.medium}`, `utm_campaign=${CAMPAIGNS[campaignOf()]}`);
      if (s.contents && rand() < s.contentShare) query.push(`utm_content=${pick(s.contents)}`);
      if (s.terms && rand() < s.termShare) query.push(`utm_term=${escapeTerm(pick(s.terms))}`);
      if (s.clickId && rand() < s.clickIdShare) query.push(`${s.clickId}=${(clid = clickId(n))}`);
      if (rand() < s.referrerShare) referrer = pick(s.referrers);
    } else {
      const r = organic(rand());
      // internal navigation: the publisher's own page, which ingest does not keep as a referrer
      if (r === 'self') referrer = `https://${PUBLISHER}/article/${Math.floor(rand() * 2000)}`;
      else if (r !== 'none') referrer = r;
      // Facebook decorates every outbound link, tagged or not
      if (r.includes('facebook.com') && rand() < 0.8) query.push(`fbclid=${(clid = clickId(n))}`);
    }
    if (query.length > 0) url += `?${query.join('&')}`;
    if (rand() < 0.06) url += `#${pick(FRAGMENTS)}`;
    if (stats) {
      stats.rawUrls.add(url);
      if (clid) stats.clickIds++;
    }
    return { url, referrer, clid };
  }

  /** Event number `n` on page `page` as ingest stores its hit: url, metadata and attribution from parsePixelEvent. */
  return function store(doc, n, page) {
    const { url, referrer, clid } = hit(n, page);
    const params = new Map([
      ['owner_id', doc.owner_id],
      ['name', doc.name],
      ['url', url],
      ['content_id', doc.content_id],
      ...Object.entries(doc.metadata),
    ]);
    if (referrer !== undefined) params.set('referrer', referrer);
    const event = parsePixelEvent(params, undefined);
    doc.url = event.url;
    doc.metadata = event.metadata;
    if (event.attribution) Object.assign(doc, event.attribution);
    // the property the canonical form exists for: a click id never reaches a stored field
    if (clid && storesText(doc, clid)) throw new Error(`a click id was stored: ${JSON.stringify(doc)}`);
    return doc;
  };
}

/** Whether any stored string of `doc` (url, content id, metadata, attribution) holds `text`. */
function storesText(doc, text) {
  const strings = [doc.url, doc.content_id, ...Object.values(doc.metadata)];
  for (const field of ATTRIBUTION_FIELDS) if (doc[field] !== undefined) strings.push(doc[field]);
  return strings.some((s) => s.includes(text));
}
