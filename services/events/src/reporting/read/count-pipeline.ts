import type { Document } from 'mongodb';
import { readReportAnswers, reportGroupFields, reportGroupKeys } from '../../rollups/aggregates/cell-aggregates';
import type { GroupCount } from './count-source';
import { reportAsk } from './report-ask';
import type { ReportQuery } from '../request/report-query';

/** The `created` condition one bucket needs; absent when the range covers the bucket's whole day. */
export interface CreatedBounds {
  gte?: Date;
  lte?: Date;
}

/** One value is an equality (the index's favourite), several an $in. Values are validated strings, never operators. */
function oneOf(values: readonly string[]): unknown {
  return values.length === 1 ? values[0] : { $in: [...values] };
}

/**
 * The per-bucket count pipeline: match the owner's non-bot events, group by name (+ group
 * fields, + the visitor with uniques) with every aggregate's report accumulators (the count; with
 * metadata keys, the latest event's values: cell-aggregates.ts).
 */
export function buildCountPipeline(query: ReportQuery, created?: CreatedBounds | readonly CreatedBounds[]): Document[] {
  const match: Document = { owner_id: query.ownerId, bot: { $ne: true } };
  if (query.names) match.name = oneOf(query.names);
  if (query.urls) match.url = oneOf(query.urls);
  if (query.contentIds) match.content_id = oneOf(query.contentIds);
  if (query.deviceTypes) match.device_type = oneOf(query.deviceTypes);
  // several ranges (a report's raw parts within one day bucket, e.g. dirty hours) are one $or
  const ranges = (Array.isArray(created) ? created : created ? [created] : [])
    .filter((c) => c.gte || c.lte)
    .map(createdCondition);
  if (ranges.length === 1) match.created = ranges[0];
  else if (ranges.length > 1) match.$or = ranges.map((range) => ({ created: range }));

  const ask = reportAsk(query);
  const id: Document = { name: '$name' };
  for (const field of query.groupBy) id[field] = `$${field}`;
  // with uniques, also by visitor: one row per visitor of a group (merged as they stream in),
  // never a set of visitors in one document, however many a group has
  Object.assign(id, reportGroupKeys(ask));
  const group: Document = { _id: id, ...reportGroupFields(ask) };
  return [{ $match: match }, { $group: group }];
}

function createdCondition(created: CreatedBounds): Document {
  return { ...(created.gte ? { $gte: created.gte } : {}), ...(created.lte ? { $lte: created.lte } : {}) };
}

/** Reads one output row of buildCountPipeline back into a GroupCount. */
export function readCountRow(row: Document, query: ReportQuery, ask = reportAsk(query)): GroupCount {
  const id = row._id as Record<string, unknown>;
  const group = { name: String(id.name) } as GroupCount;
  for (const field of query.groupBy) group[field] = stringOrEmpty(id[field]);
  return readReportAnswers(row, ask, group);
}

function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}
