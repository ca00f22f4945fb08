import type { ReportAsk } from '../../rollups/aggregates/aggregate';
import { encodeMetadataKey } from '../../storage/metadata-key';
import type { ReportQuery } from '../request/report-query';

/** What a report asks of the aggregates: its metadata keys as stored (escaped) and whether it wants uniques. */
export function reportAsk(query: ReportQuery): ReportAsk {
  return { metadataKeys: query.metadataKeys.map(encodeMetadataKey), uniques: query.metrics.includes('uniques') };
}
