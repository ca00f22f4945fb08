import type { Document } from 'mongodb';
import type { Latest } from './aggregates/latest-aggregate';

/**
 * One pass over a day bucket for the hours being built: every non-bot event of [from, to) grouped
 * by owner, hour, name, content_id, url and device, with the count and the latest event (the
 * same `$max` over {created, _id, metadata} the report pipeline uses, so ties break alike).
 * `$hour` instead of `$dateTrunc` (not in the portable subset); buckets are UTC days, so the hour
 * of the day is enough.
 */
export function buildHourPipeline(from: Date, to: Date): Document[] {
  return [
    { $match: { created: { $gte: from, $lt: to }, bot: { $ne: true } } },
    {
      $group: {
        _id: { o: '$owner_id', h: { $hour: '$created' }, n: '$name', c: '$content_id', u: '$url', d: '$device_type' },
        v: { $sum: 1 },
        l: { $max: { c: '$created', i: '$_id', m: { $ifNull: ['$metadata', {}] } } },
      },
    },
  ];
}

export interface HourRow {
  owner: string;
  hour: number;
  name: string;
  contentId: string;
  url: string;
  device: string;
  count: number;
  latest: Latest;
}

export function readHourRow(row: Document): HourRow {
  const id = row._id as Record<string, unknown>;
  const l = row.l as { c: Date; i: unknown; m?: Record<string, unknown> };
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(l.m ?? {})) if (typeof v === 'string') metadata[k] = v;
  return {
    owner: String(id.o),
    hour: Number(id.h),
    name: String(id.n),
    contentId: text(id.c),
    url: text(id.u),
    device: text(id.d),
    count: Number(row.v),
    latest: [l.c.getTime(), String(l.i), metadata],
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}
