import { BSON, type Document } from 'mongodb';
import { parseReportRequest } from '../request/parse-report-request';
import type { ReportQuery } from '../request/report-query';
import { RAW_URL_FILTER_BYTES } from './raw-pipeline';
import { readPlanOf } from './read-plan';

// A campaign's url filter has no cap on its values (up to the registry's 10,000 URLs): the rollup
// key filter takes them all, and the raw pipeline carries them in slices under a command's size.
const base = parseReportRequest({ owner_id: '42', metrics: 'count,frequency' }, { maxRangeDays: 31 });
const withUrls = (urls: string[]): ReportQuery => ({ ...base, filters: { url: urls } });
const urlsOf = (pipeline: Document[]): string[] => {
  const condition = pipeline[0]!.$match.url as string | { $in: string[] };
  return typeof condition === 'string' ? [condition] : condition.$in;
};

describe('a read plan over a campaign of many URLs', () => {
  test('when the filter holds 10,000 URLs, then the pages family is read and its key filter keeps every one', () => {
    const urls = Array.from({ length: 10_000 }, (_, i) => `https://shop.example/p/${i}?color=blue`);
    const plan = readPlanOf(withUrls(urls));
    expect(plan.family?.id).toBe('p');
    const at = plan.family!.dimensions.indexOf('url');
    expect(plan.keyFilters[at]?.size).toBe(10_000);
    const pipelines = plan.rawPipelines([]);
    expect(pipelines).toHaveLength(1);
    expect(urlsOf(pipelines[0]!)).toEqual(urls);
  });

  test('when the URLs are long enough to pass a command size, then the raw side reads them in disjoint slices, each well under 16 MiB', () => {
    const urls = Array.from(
      { length: 10_000 },
      (_, i) => `https://shop.example/${String(i).padStart(5, '0')}/${'x'.repeat(2020)}`,
    );
    const pipelines = readPlanOf(withUrls(urls)).rawPipelines([{ gte: new Date('2026-10-05T04:00:00Z') }]);
    expect(pipelines.length).toBeGreaterThanOrEqual(5);
    for (const pipeline of pipelines) {
      expect(BSON.calculateObjectSize({ aggregate: 'events_20261005', pipeline })).toBeLessThan(
        RAW_URL_FILTER_BYTES + 64 * 1024,
      );
      // everything but the url values is the same in every slice
      expect({ ...pipeline[0]!.$match, url: undefined }).toEqual({ ...pipelines[0]![0]!.$match, url: undefined });
    }
    expect(pipelines.flatMap(urlsOf)).toEqual(urls);
  });

  test('when there is no url filter or an empty value in it, then there is one pipeline and "" still finds events without a url', () => {
    expect(readPlanOf(base).rawPipelines([])).toHaveLength(1);
    const [pipeline] = readPlanOf(withUrls(['', 'https://a.example/'])).rawPipelines([]);
    expect(pipeline![0]!.$match.url).toEqual({ $in: ['', 'https://a.example/', null] });
  });
});
