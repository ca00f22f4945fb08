import type { ReportAsk } from '../../rollups/aggregates/aggregate';
import { encodeMetadataKey } from '../../storage/metadata-key';
import type { ReportQuery } from '../request/report-query';

/** What a report asks of the aggregates: its metadata keys as stored (escaped) and which metrics need which state. */
export function reportAsk(query: ReportQuery): ReportAsk {
  const stats = query.measureMetrics.map((m) => m.stat);
  return {
    metadataKeys: query.metadataKeys.map(encodeMetadataKey),
    uniques: query.metrics.includes('uniques'),
    allDevices: query.deviceTypes === undefined || new Set(query.deviceTypes).size === 3,
    sums: stats.includes('sum') || stats.includes('avg'),
    quantiles: stats.includes('quantile') || stats.includes('share'),
  };
}
