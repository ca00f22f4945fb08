import type { Document } from 'mongodb';
import { encodeMetadataKey } from '../../storage/metadata-key';
import type { GroupCount } from './count-source';
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
 * fields) and count. With metadata keys, the group also keeps the latest event's values via
 * `$max` over `{c: created, i: _id, m: {...}}`: documents compare field by field, so this picks
 * the newest event (ties broken by the time-ordered id) without sorting. `$ifNull` turns a
 * missing key into "" (and keeps the expression portable to the MongoDB stand-in).
 */
export function buildCountPipeline(query: ReportQuery, created?: CreatedBounds | readonly CreatedBounds[]): Document[] {
  const match: Document = { owner_id: query.ownerId, bot: { $ne: true } };
  if (query.names) match.name = oneOf(query.names);
  if (query.urls) match.url = oneOf(query.urls);
  if (query.contentIds) match.content_id = oneOf(query.contentIds);
  if (query.deviceTypes) match.device_type = oneOf(query.deviceTypes);
  // several ranges (a report's raw parts within one day bucket, e.g. dirty hours) are one $or
  const ranges = (Array.isArray(created) ? created : created ? [created] : []).filter((c) => c.gte || c.lte).map(createdCondition);
  if (ranges.length === 1) match.created = ranges[0];
  else if (ranges.length > 1) match.$or = ranges.map((range) => ({ created: range }));

  const id: Document = { name: '$name' };
  for (const field of query.groupBy) id[field] = `$${field}`;
  const group: Document = { _id: id, value: { $sum: 1 } };
  if (query.metadataKeys.length > 0) {
    // positional output names: the caller's key never becomes an output field name
    const values = Object.fromEntries(query.metadataKeys.map((key, i) => [`k${i}`, { $ifNull: [`$metadata.${encodeMetadataKey(key)}`, ''] }]));
    group.latest = { $max: { c: '$created', i: '$_id', m: values } };
  }
  return [{ $match: match }, { $group: group }];
}

function createdCondition(created: CreatedBounds): Document {
  return { ...(created.gte ? { $gte: created.gte } : {}), ...(created.lte ? { $lte: created.lte } : {}) };
}

/** Reads one output row of buildCountPipeline back into a GroupCount. */
export function readCountRow(row: Document, query: ReportQuery): GroupCount {
  const id = row._id as Record<string, unknown>;
  const group: GroupCount = { name: String(id.name), value: Number(row.value) };
  for (const field of query.groupBy) group[field] = stringOrEmpty(id[field]);
  if (query.metadataKeys.length > 0) {
    const latest = row.latest as { c: Date; i: unknown; m?: Record<string, unknown> };
    group.latest = {
      created: latest.c,
      id: String(latest.i),
      metadata: query.metadataKeys.map((_key, i) => stringOrEmpty(latest.m?.[`k${i}`])),
    };
  }
  return group;
}

function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}
