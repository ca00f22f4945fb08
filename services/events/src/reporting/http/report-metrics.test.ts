import { createRegistry } from '@cm/platform';
import { createReportMetrics } from './report-metrics';

/** The value of the one series of `name` whose labels include `label` (the registry adds its service label). */
function valueOf(text: string, name: string, label = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line ? Number(line.split(' ').pop()) : NaN;
}

test('when the decoded-page cache has served and read pages, then a scrape shows both counts and its bytes as they are at the scrape', async () => {
  const registry = createRegistry('report_metrics_test');
  const cache = { hits: 0, reads: 0, size: 0 };
  createReportMetrics(registry, cache);
  Object.assign(cache, { hits: 12, reads: 3, size: 4096 });
  let text = await registry.metrics();
  expect(valueOf(text, 'events_report_pages_total', 'source="cache"')).toBe(12);
  expect(valueOf(text, 'events_report_pages_total', 'source="store"')).toBe(3);
  expect(valueOf(text, 'events_report_page_cache_bytes')).toBe(4096);
  Object.assign(cache, { hits: 20, reads: 5, size: 1024 });
  text = await registry.metrics();
  expect(valueOf(text, 'events_report_pages_total', 'source="cache"')).toBe(20);
  expect(valueOf(text, 'events_report_pages_total', 'source="store"')).toBe(5);
  expect(valueOf(text, 'events_report_page_cache_bytes')).toBe(1024);
});
