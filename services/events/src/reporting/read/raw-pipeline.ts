import type { Document } from 'mongodb';
import type { ReportAsk } from '../../metrics/aggregate';
import { reportRowParts } from '../../metrics/registry';
import { matchCondition, pipelineValue, type Dimension } from '../../storage/dimensions';
import type { ReportQuery } from '../request/report-query';

/** The `created` condition one bucket needs; absent when the range covers the bucket's whole day. */
export interface CreatedBounds {
  gte?: Date;
  lte?: Date;
}

/**
 * Bytes of url filter values one raw pipeline carries: a MongoDB command is at most 16 MiB, and
 * a campaign may hold 10,000 URLs of up to 2,048 characters (20 MiB).
 */
export const RAW_URL_FILTER_BYTES = 4 * 1024 * 1024;

/**
 * The raw pipelines of one day bucket for these created ranges (none: the whole day): one, or,
 * for a url filter too large for one command (a campaign's thousands of long URLs), one per slice
 * of its values, whose parts merge like any others (each event has one url). The slices are cut
 * once, when the plan is made.
 */
export function rawPipelinesOf(
  query: ReportQuery,
  ask: ReportAsk,
): (created: readonly CreatedBounds[]) => Document[][] {
  const urlSlices = query.filters.url ? slicesOf(query.filters.url, RAW_URL_FILTER_BYTES) : [undefined];
  return (created) => urlSlices.map((urls) => buildRawPipeline(query, ask, created, urls));
}

/** One value is an equality (the index's favourite), several an $in. Values are validated strings, never operators. */
function oneOf(values: readonly string[]): unknown {
  return values.length === 1 ? values[0] : { $in: [...values] };
}

/**
 * The per-bucket pipeline: match the owner's non-bot events, group by name, the group_by
 * dimensions and what the asked aggregates add (the visitor, the measures' values), with the
 * asked aggregates' accumulators.
 */
function buildRawPipeline(
  query: ReportQuery,
  ask: ReportAsk,
  created: readonly CreatedBounds[],
  urls: readonly string[] | undefined,
): Document[] {
  const match: Document = { owner_id: query.ownerId, bot: { $ne: true } };
  if (query.names) match.name = oneOf(query.names);
  for (const [dimension, values] of Object.entries(query.filters) as Array<[Dimension, string[]]>)
    match[dimension] = matchCondition(dimension === 'url' ? urls! : values);
  if (query.deviceTypes) match.device_type = oneOf(query.deviceTypes);
  // several ranges (a report's raw parts within one day bucket, e.g. dirty hours) are one $or
  const ranges = created.filter((c) => c.gte || c.lte).map(createdCondition);
  if (ranges.length === 1) match.created = ranges[0];
  else if (ranges.length > 1) match.$or = ranges.map((range) => ({ created: range }));
  const { key, group } = reportRowParts(ask);
  const id: Document = { name: '$name' };
  query.groupBy.forEach((dimension, i) => (id[`g${i}`] = pipelineValue(dimension)));
  Object.assign(id, key);
  return [{ $match: match }, { $group: { _id: id, ...group } }];
}

/** The values in consecutive slices of at most `maxBytes` UTF-8 bytes each (at least one value a slice). */
function slicesOf(values: readonly string[], maxBytes: number): string[][] {
  const slices: string[][] = [[]];
  let bytes = 0;
  for (const value of values) {
    const size = Buffer.byteLength(value) + 16;
    if (bytes + size > maxBytes && slices[slices.length - 1]!.length > 0) {
      slices.push([]);
      bytes = 0;
    }
    slices[slices.length - 1]!.push(value);
    bytes += size;
  }
  return slices;
}

function createdCondition(created: CreatedBounds): Document {
  return { ...(created.gte ? { $gte: created.gte } : {}), ...(created.lte ? { $lte: created.lte } : {}) };
}
