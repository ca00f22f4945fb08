// The shares behind report-web.mjs: countries, campaign sources and their links, the referring
// sites of untagged visits, and the seeded draws every bench:report generator uses. Shares are
// rounded from what publishers' analytics commonly show (search the largest referrer, most visits
// with none, a third of the audience in the US and a long tail of countries); they make the data
// look like the web, they are no market statistics.

/** mulberry32: a float LCG like (s * 1103515245 + 12345) % 2^31 loses its low bits past 2^53 and cycles. */
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf(s) over n items: item i (0-based) has weight 1/(i+1)^s. Returns a sampler of indexes. */
export function zipf(n, s, rand) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1) ** s;
  for (let i = 0; i < n; i++) cdf[i] /= sum;
  return () => {
    const r = rand();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** [value, weight] pairs (weights need not add up to 1) -> (u in [0, 1)) => value. */
export function pickWeighted(pairs) {
  const total = pairs.reduce((a, [, w]) => a + w, 0);
  const cdf = [];
  let sum = 0;
  for (const [value, w] of pairs) cdf.push([(sum += w / total), value]);
  return (u) => (cdf.find(([c]) => u < c) ?? cdf[cdf.length - 1])[1];
}

/** Visitors' countries (percent); undefined is unknown (3 %: no field, as ingest stores it). */
// prettier-ignore
export const COUNTRIES = Object.entries({
  US: 30, DE: 7, GB: 6.5, IN: 5.5, FR: 4.5, BR: 3.5, CA: 3.2, JP: 2.8, ES: 2.3, IT: 2.2,
  NL: 1.8, AU: 1.8, MX: 1.6, PL: 1.3, SE: 1, TR: 1, ID: 1, PH: 0.9, KR: 0.9, CH: 0.8,
  BE: 0.8, AT: 0.7, RU: 0.7, ZA: 0.6, AR: 0.6, CO: 0.6, NG: 0.5, PK: 0.5, VN: 0.5, TH: 0.5,
  MY: 0.45, SG: 0.45, IE: 0.45, DK: 0.45, NO: 0.4, FI: 0.4, PT: 0.4, CZ: 0.4, RO: 0.4, UA: 0.4,
  IL: 0.35, AE: 0.35, SA: 0.3, EG: 0.3, GR: 0.3, HU: 0.3, NZ: 0.3, CL: 0.3, TW: 0.25, HK: 0.25,
  PE: 0.25, KE: 0.2, BD: 0.2, MA: 0.15, SK: 0.15, BG: 0.15, HR: 0.12, RS: 0.12, LT: 0.1, LV: 0.08,
  EE: 0.08, SI: 0.08, LU: 0.05, IS: 0.04, XK: 0.02,
});
const KNOWN = COUNTRIES.reduce((a, [, w]) => a + w, 0);
// unknown: 3 % of the whole
COUNTRIES.push([undefined, (KNOWN * 3) / 97]);

/** Campaign names (Zipf-drawn, s = 1.1: a few running campaigns take most tagged visits). */
// prettier-ignore
export const CAMPAIGNS = [
  'spring_sale_2026', 'brand_awareness', 'newsletter_weekly', 'retargeting_q4', 'black_friday',
  'summer_reads', 'product_launch_x2', 'always_on_search', 'holiday_gift_guide', 'webinar_nov',
  'cyber_monday', 'lookalike_test', 'back_to_school', 'podcast_promo', 'app_install',
  'loyalty_members', 'winter_clearance', 'partner_coop', 'video_views_q3', 'ebook_download',
  'free_trial_push', 'local_events', 'influencer_may', 'case_study_series', 'survey_followup',
  'giveaway_oct', 'premium_upsell', 'referral_program', 'reactivation', 'test_campaign_do_not_use',
];

// prettier-ignore
const SEARCH_TERMS = [
  'running shoes', 'best laptop 2026', 'news today', 'cheap flights', 'how to bake bread', 'weather',
  'stock market', 'election results', 'recipe ideas', 'travel deals', 'phone review', 'garden tips',
  'home workout', 'crypto news', 'car insurance', 'learn python', 'movie reviews', 'football scores',
  'healthy dinner', 'mortgage rates', 'electric cars', 'diy furniture', 'job search', 'vpn', 'coffee maker',
];
const AD_CONTENTS = [
  'banner_a',
  'banner_b',
  'video_15s',
  'carousel_1',
  'carousel_2',
  'story',
  'text_ad_1',
  'text_ad_2',
];
const MAIL_CONTENTS = ['header_link', 'hero_image', 'footer_cta', 'article_list', 'read_more'];

/**
 * Where tagged visits come from (shares of the tagged ones): each source's medium, its click id
 * and how often the link carries one, its utm_content and utm_term values, and the referring page
 * the browser reports (absent when it sends none: apps, mail clients, referrer policies).
 */
// prettier-ignore
export const SOURCES = [
  { source: 'google', medium: 'cpc', weight: 25, clickId: 'gclid', clickIdShare: 0.85, terms: SEARCH_TERMS, termShare: 0.8, contents: AD_CONTENTS, contentShare: 0.2, referrers: ['https://www.google.com/'], referrerShare: 0.85 },
  { source: 'facebook', medium: 'paid_social', weight: 20, clickId: 'fbclid', clickIdShare: 0.95, contents: AD_CONTENTS, contentShare: 0.6, referrers: ['https://l.facebook.com/', 'https://m.facebook.com/', 'https://lm.facebook.com/l.php?u=https%3A%2F%2Fpublisher.example%2F'], referrerShare: 0.8 },
  { source: 'newsletter', medium: 'email', weight: 18, contents: MAIL_CONTENTS, contentShare: 0.7, referrers: ['https://mail.google.com/', 'https://outlook.live.com/', 'android-app://com.google.android.gm/'], referrerShare: 0.4 },
  { source: 'twitter', medium: 'social', weight: 6, clickId: 'twclid', clickIdShare: 0.3, referrers: ['https://t.co/x7Ab3kQz'], referrerShare: 0.85 },
  { source: 'linkedin', medium: 'paid_social', weight: 6, clickId: 'li_fat_id', clickIdShare: 0.5, contents: AD_CONTENTS, contentShare: 0.5, referrers: ['https://www.linkedin.com/', 'https://lnkd.in/'], referrerShare: 0.7 },
  { source: 'bing', medium: 'cpc', weight: 6, clickId: 'msclkid', clickIdShare: 0.9, terms: SEARCH_TERMS, termShare: 0.7, referrers: ['https://www.bing.com/'], referrerShare: 0.9 },
  { source: 'instagram', medium: 'social', weight: 6, clickId: 'fbclid', clickIdShare: 0.7, referrers: ['https://l.instagram.com/'], referrerShare: 0.7 },
  { source: 'partner.example', medium: 'referral', weight: 5, referrers: ['https://partner.example/deals'], referrerShare: 0.9 },
  { source: 'affiliate', medium: 'affiliate', weight: 4, clickId: 'irclickid', clickIdShare: 0.9, referrers: ['https://www.coupons.example/', 'https://deals.example/top'], referrerShare: 0.8 },
  { source: 'tiktok', medium: 'paid_social', weight: 4, clickId: 'ttclid', clickIdShare: 0.8, contents: AD_CONTENTS, contentShare: 0.4, referrers: ['https://www.tiktok.com/'], referrerShare: 0.5 },
];

// the long tail of small sites that link to an article: blogs and forums, a few visits each
const LONG_TAIL = Array.from({ length: 40 }, (_, i) => [`https://blog${i + 1}.example/posts/${i * 7}`, 2 / (i + 1)]);
const LONG_TAIL_WEIGHT = LONG_TAIL.reduce((a, [, w]) => a + w, 0);

/**
 * The referring page of an untagged visit (percent): none (typed, bookmarked, apps, policies),
 * the publisher's own page (internal navigation: not kept, see report-web.mjs), search, social,
 * news aggregators, the long tail.
 */
export const ORGANIC_REFERRERS = [
  ['none', 38],
  ['self', 22],
  ['https://www.google.com/', 20],
  ['https://www.google.de/', 1.5],
  ['https://www.google.co.uk/', 1.2],
  ['https://www.google.fr/', 0.8],
  ['https://www.google.co.in/', 0.8],
  ['https://www.google.com.br/', 0.5],
  ['https://www.bing.com/', 1.5],
  ['https://duckduckgo.com/', 0.8],
  ['https://search.yahoo.com/', 0.5],
  ['https://yandex.ru/', 0.3],
  ['https://www.ecosia.org/', 0.2],
  ['https://search.brave.com/', 0.2],
  ['https://www.baidu.com/', 0.1],
  ['https://l.facebook.com/', 1.5],
  ['https://m.facebook.com/', 1],
  ['https://t.co/x7Ab3kQz', 1],
  ['https://www.reddit.com/r/news/comments/abc123/', 1],
  ['https://www.linkedin.com/', 0.5],
  ['https://www.youtube.com/', 0.4],
  ['https://www.pinterest.com/', 0.3],
  ['android-app://com.google.android.gm/', 0.3],
  ['https://news.google.com/', 1.5],
  ['https://www.msn.com/', 0.8],
  ['https://news.yahoo.com/', 0.4],
  ['https://flipboard.com/', 0.4],
  ['https://news.ycombinator.com/item?id=40001234', 0.4],
  ['https://www.drudgereport.com/', 0.2],
  ['https://www.theguardian.com/', 0.3],
  ...LONG_TAIL.map(([url, w]) => [url, (2 * w) / LONG_TAIL_WEIGHT]),
];
