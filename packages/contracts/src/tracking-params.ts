import { TidyURL } from 'tidy-url';

/**
 * Query parameters that say how a visitor arrived, never which page they are on: removed from a
 * page URL before it is stored or compared (page-url.ts), so that a campaign's visitors count on
 * one page rather than on one URL per ad, mail or click.
 *
 * The base is the "Global" rule of `tidy-url` (pinned, MIT): the parameters it strips from every
 * site (UTM and its ITM/INT variants, Matomo/Piwik, HubSpot, Marketo, Eloqua, Mailchimp, Google
 * and Facebook click ids, ...). Its site-specific rules are not used: they strip parameters that
 * do identify content on the sites they target (`p` on one, `id`-like names on others) and would
 * merge different pages of other sites. Added here: click ids and link decorations of the
 * advertising platforms that its global rule lacks. Taken out: `mbid`, which music sites use as
 * the MusicBrainz id of the page's subject.
 */
const OUR_ADDITIONS = [
  // Google Ads, Search Ads 360, Campaign Manager, Merchant Center, cross-domain linker
  'gclid',
  'gclsrc',
  'gbraid',
  'wbraid',
  'dclid',
  'gad_source',
  'gad_campaignid',
  'srsltid',
  '_ga',
  '_gl',
  // Microsoft, Yandex, X (Twitter), TikTok, LinkedIn, Instagram, Facebook, Snapchat, Pinterest
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'igsh',
  'fbclid',
  'sccid',
  'epik',
  // Mailchimp, Klaviyo, HubSpot, Adobe, Impact, Wicked Reports
  'mc_cid',
  'mc_eid',
  '_kx',
  '_hsenc',
  '_hsmi',
  's_kwcid',
  'ef_id',
  'irclickid',
  'wickedid',
] as const;

/** In tidy-url's global rule, but a content identifier on the sites that use it. */
const NOT_TRACKING = new Set(['mbid']);

function globalRule(): readonly string[] {
  const rule = TidyURL.rules.find((r) => r.name === 'Global');
  // a release that renamed its global rule must not silently stop removing anything: the unit
  // test holds the pinned release to a list of this size, and our own additions stand regardless
  return rule?.rules ?? [];
}

/** Lower-case names; matched case-insensitively (`UTM_Source` is as much a tag as `utm_source`). */
export const TRACKING_PARAMETERS: ReadonlySet<string> = new Set(
  [...globalRule(), ...OUR_ADDITIONS].map((name) => name.trim().toLowerCase()).filter((n) => !NOT_TRACKING.has(n)),
);

/** `utm_*` of any suffix is tracking, whether or not a list names it. */
export function isTrackingParameter(lowerCaseName: string): boolean {
  return lowerCaseName.startsWith('utm_') || TRACKING_PARAMETERS.has(lowerCaseName);
}
