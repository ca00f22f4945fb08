import type { Document } from 'mongodb';
import { cellValueOfRow, hourGroupFields, hourGroupKeys, type CellValue } from './aggregates/cell-aggregates';
import { deviceIndex } from './cell-table';

/**
 * One pass over a day bucket for the hours being built: every non-bot event of [from, to) grouped
 * by owner, hour, name, content_id, url and device (and what an aggregate adds to the key: the
 * visitor, for distinct counts), with the accumulators of every cell aggregate (`group()` of
 * each, in registry order).
 * `$hour` instead of `$dateTrunc` (not in the portable subset); buckets are UTC days, so the hour
 * of the day is enough.
 */
export function buildHourPipeline(from: Date, to: Date): Document[] {
  return [
    { $match: { created: { $gte: from, $lt: to }, bot: { $ne: true } } },
    {
      $group: {
        _id: {
          o: '$owner_id',
          h: { $hour: '$created' },
          n: '$name',
          c: '$content_id',
          u: '$url',
          d: '$device_type',
          ...hourGroupKeys(),
        },
        ...hourGroupFields(),
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
  /** The row's states under its device, the other devices empty. */
  value: CellValue;
}

export function readHourRow(row: Document): HourRow {
  const id = row._id as Record<string, unknown>;
  return {
    owner: String(id.o),
    hour: Number(id.h),
    name: String(id.n),
    contentId: text(id.c),
    url: text(id.u),
    value: cellValueOfRow(row, deviceIndex(text(id.d))),
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}
