// One UTC hour of pixel hits stored as the consumer stores them, for the rollup builder's benches
// (bench:builder-rows, bench:flood-hour). Each hit's parameters go through ingest's own parsing
// (parsePixelEvent: the canonical url, the attribution from the url's utm_* and the referrer, the
// measures) and become the stored document (toEventDocument), so the hour pipeline groups exactly
// what production stores. Deterministic: the same seed gives the same events.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gaussian } from './report-data.mjs';
import { mulberry32, zipf } from './report-web-mix.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const dist = (p) => require(path.join(root, 'services/events/dist', p));
const { v7 } = require(require.resolve('uuid', { paths: [path.join(root, 'services/events')] }));
const { parsePixelEvent } = dist('ingest/pixel-params');
const { toEventDocument } = dist('storage/event-document');

export const HOUR_MS = 3_600_000;

const DEVICES = ['desktop', 'desktop', 'mobile', 'mobile', 'mobile', 'tablet'];
const COUNTRIES = ['US', 'US', 'US', 'DE', 'DE', 'GB', 'FR', 'IN', 'BR', 'CA', 'JP', 'ES', 'NL', undefined];
const SECTIONS = ['politics', 'sport', 'tech', 'culture', 'money', 'travel'];
/** How a visitor arrived: the page url's tracking parameters and the referrer (none: direct). */
const ARRIVALS = [
  { share: 0.35 },
  { share: 0.2, referrer: 'https://www.google.com/search?q=news' },
  { share: 0.08, referrer: 'https://www.google.com/', query: 'gclid' },
  {
    share: 0.12,
    query: 'utm_source=newsletter&utm_medium=email&utm_campaign=spring-2026&utm_content=top-story',
  },
  { share: 0.1, referrer: 'https://l.facebook.com/', query: 'utm_source=facebook&utm_medium=social&fbclid' },
  { share: 0.08, referrer: 'https://t.co/a8Zk2' },
  { share: 0.04, referrer: 'HTTPS://News.YCombinator.com/item?id=1', query: 'utm_term=Front+Page' },
  { share: 0.03, referrer: 'https://bücher.example/empfehlungen' },
];

/** 52 well-mixed bits from two draws, as ingest's HMAC gives. */
const hashOf = (rand) => Math.floor(rand() * 2 ** 26) * 2 ** 26 + Math.floor(rand() * 2 ** 26);
const token = (rand, n) =>
  Array.from(
    { length: n },
    () => 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'[Math.floor(rand() * 57)],
  ).join('');

/** The page url a hit sends for page `p`, as browsers send it (case, fragments, tracking parameters). */
function pageUrl(p, arrival, rand) {
  let host = p % 10 === 9 ? 'bücher.example' : 'www.example-news.com';
  if (rand() < 0.05) host = host.toUpperCase();
  const params = [];
  if (p % 3 === 0) params.push(`id=${p}`);
  if (p % 5 === 0 && rand() < 0.3) params.push('page=2');
  if (arrival.query) {
    for (const part of arrival.query.split('&'))
      params.push(
        part === 'gclid' ? `gclid=${token(rand, 24)}` : part === 'fbclid' ? `fbclid=IwAR${token(rand, 20)}` : part,
      );
  }
  const fragment = rand() < 0.05 ? '#comments' : '';
  return `https://${host}/${SECTIONS[p % SECTIONS.length]}/story-${p}${params.length > 0 ? `?${params.join('&')}` : ''}${fragment}`;
}

/** The stored document of one hit (`params` as the pixel received them). */
function stored(params, { created, device, bot, visitor, country }) {
  const event = parsePixelEvent(new Map(Object.entries(params)), undefined);
  const record = {
    id: v7({ msecs: created }),
    owner_id: event.owner_id,
    name: event.name,
    url: event.url,
    content_id: event.content_id,
    device_type: device,
    bot,
    metadata: event.metadata,
    created: new Date(created).toISOString(),
    ...(visitor === undefined ? {} : { visitor }),
    ...(event.measures ? { measures: event.measures } : {}),
    ...(country === undefined ? {} : { country }),
    ...event.attribution,
  };
  return toEventDocument(record);
}

/**
 * `events` hits of the hour starting at `hour` (epoch ms), over `owners` (equal shares), in time
 * order. Visitors (a pool of a quarter as many as events, each with its device, country and way
 * of arriving) come in sessions of one to eight page views over Zipf-distributed pages (`pages`
 * of them, s = 1.1): an impression per page, then a click (20 %), a view (12 %) or a share (2 %).
 * `measures`: 'none'; 'mix' (views carry engaged time and scroll depth, one click in ten a
 * value); 'all' (every hit carries all three). `visitors` false: hits stored without a visitor
 * (as before visitors were recorded). 1 % of hits are bots (stored, never counted).
 */
export function hourEvents({ hour, events, owners, pages = 3000, seed = 7, measures = 'mix', visitors = true }) {
  const rand = mulberry32(seed);
  const pageOf = zipf(pages, 1.1, rand);
  const pool = Math.max(1, Math.round(events / 4 / owners.length));
  const people = owners.map(() =>
    Array.from({ length: pool }, () => {
      let r = rand();
      const arrival = ARRIVALS.find((a) => (r -= a.share) < 0) ?? ARRIVALS[0];
      return {
        hash: hashOf(rand),
        device: DEVICES[Math.floor(rand() * DEVICES.length)],
        country: COUNTRIES[Math.floor(rand() * COUNTRIES.length)],
        arrival,
      };
    }),
  );
  const measuresOf = (name) => {
    const engaged = () => String(Math.min(1_800_000, Math.round(20_000 * Math.exp(1.2 * gaussian(rand)))));
    if (measures === 'all')
      return {
        engaged_ms: engaged(),
        scroll_depth: String(Math.floor(rand() * 101)),
        value: String(100 + Math.floor(rand() * 20_000)),
      };
    if (measures === 'mix' && name === 'view')
      return { engaged_ms: engaged(), scroll_depth: String(Math.floor(rand() * 101)) };
    if (measures === 'mix' && name === 'click' && rand() < 0.1)
      return { value: String(100 + Math.floor(rand() * 20_000)) };
    return {};
  };
  const docs = [];
  while (docs.length < events) {
    const o = Math.floor(rand() * owners.length);
    const person = people[o][Math.floor(rand() * pool)];
    let at = hour + Math.floor(rand() * HOUR_MS * 0.95);
    const views = 1 + Math.min(7, Math.floor(Math.log(1 - rand()) / Math.log(0.55)));
    for (let v = 0; v < views && docs.length < events; v++) {
      const p = pageOf();
      const url = pageUrl(p, person.arrival, rand);
      const names = ['impression'];
      const r = rand();
      if (r < 0.2) names.push('click');
      else if (r < 0.32) names.push('view');
      else if (r < 0.34) names.push('share');
      for (const name of names) {
        if (docs.length >= events) break;
        const params = { owner_id: owners[o], name, url, ...measuresOf(name) };
        if (rand() < 0.9) params.content_id = `story-${p}`;
        if (person.arrival.referrer) params.referrer = person.arrival.referrer;
        if (rand() < 0.3) Object.assign(params, { campaign: 'spring-2026', variant: rand() < 0.5 ? 'a' : 'b' });
        at = Math.min(hour + HOUR_MS - 1, at + Math.floor(rand() * 40_000));
        docs.push(
          stored(params, {
            created: at,
            device: person.device,
            bot: rand() < 0.01,
            visitor: visitors ? person.hash : undefined,
            country: person.country,
          }),
        );
      }
    }
  }
  return docs.sort((a, b) => a.created - b.created);
}

/**
 * A tenant's flood: `urls` distinct short urls in the hour, each hit once under every name of
 * `names` by a visitor of its own (a link shortener's long tail: no url seen twice under a name).
 */
export function floodEvents({ hour, owner, urls, names, seed = 11 }) {
  const rand = mulberry32(seed);
  const docs = [];
  for (let i = 0; i < urls; i++) {
    const url = `https://sho.rt/${(1_000_000 + i * 7919).toString(36)}`;
    const device = DEVICES[i % DEVICES.length];
    const country = COUNTRIES[i % COUNTRIES.length];
    const visitor = hashOf(rand);
    for (const name of names)
      docs.push(
        stored(
          { owner_id: owner, name, url },
          { created: hour + Math.floor(rand() * HOUR_MS), device, bot: false, visitor, country },
        ),
      );
  }
  return docs.sort((a, b) => a.created - b.created);
}
