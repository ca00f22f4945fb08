import { canonicalPageUrl, EVENT_LIMITS, referrerHost } from '@cm/contracts';
import { DIMENSIONS, storedValue } from '../../storage/dimensions';
import type { CampaignScope } from './campaign-scope';
import type { ReportQuery } from './report-query';
import type { ReportBody } from './report-schema';

/** What a report keeps of the stored events: names, device types and each dimension's values, as stored. */
export type ReportFilters = Pick<ReportQuery, 'names' | 'deviceTypes' | 'filters'>;

/**
 * The filters of a validated body, without repeats, as stored values. With `campaign` the url
 * filter is the campaign's URLs within the given ones (an empty list: nothing can match). Pure.
 */
export function reportFilters(input: ReportBody, campaign?: CampaignScope): ReportFilters {
  const filters: ReportQuery['filters'] = {};
  for (const dimension of DIMENSIONS) {
    const values = input[dimension];
    if (!values) continue;
    if (dimension === 'url') filters.url = urlFilterValues(values);
    // a referring site is stored as its host: a URL or an upper-case host given finds it too
    else if (dimension === 'referrer') filters.referrer = distinct(values.map((v) => referrerHost(v) ?? v));
    else filters[dimension] = distinct(values.map((v) => storedValue(dimension, v)));
  }
  if (campaign) filters.url = campaignUrls(campaign, filters.url);
  return { names: distinct(input.name), filters, deviceTypes: distinct(input.device_type) };
}

/**
 * The values a `url` filter matches: each given value's canonical form (events are stored under
 * it since page URLs are canonical) and the value as given (events stored before hold the URL as
 * it was sent), without repeats. A value without a canonical form (not an absolute http(s) URL,
 * "") is matched as given only.
 */
export function urlFilterValues(given: readonly string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const values = new Set<string>();
  for (const value of given) {
    const canonical = canonicalPageUrl(value);
    if (canonical.ok) values.add(canonical.url);
    values.add(value);
  }
  return [...values];
}

/**
 * The url values a campaign report keeps: the campaign's URLs (canonical, as every event since
 * canonical URLs holds them), only those the given filter also names when there is one (`given`:
 * its values normalised by urlFilterValues). Any number of them: the 100-value cap is for lists
 * in a request. A URL longer than an event's url can hold matches no event and is left out.
 */
export function campaignUrls(campaign: CampaignScope, given: readonly string[] | undefined): string[] {
  const wanted = given ? new Set(given) : undefined;
  return campaign.urls.filter((url) => url.length <= EVENT_LIMITS.urlMax && (!wanted || wanted.has(url)));
}

function distinct<T>(values: T[]): T[];
function distinct<T>(values: T[] | undefined): T[] | undefined;
function distinct<T>(values: T[] | undefined): T[] | undefined {
  return values ? [...new Set(values)] : undefined;
}
