import type { Document } from 'mongodb';

type Value = (doc: Document) => unknown;

/**
 * The hour pipeline's `$group` (hour-pipeline.ts) evaluated in Node for one event at a time: the
 * row the server would output for a group holding only that event. The builder reads raw events
 * with a plain `find` and merges one such row per event into its tables, which equals merging the
 * server's rows (every aggregate's merge is associative and commutative: aggregate-laws.test.ts),
 * without the `$group`, which a MongoDB stand-in runs in generic code at several times the cost
 * of the scan. Compiled once from the same `$group` document, so the aggregates stay the one
 * place a row is defined; an operator outside the subset below fails at compile time.
 */
export function eventRowOf(group: Document): (event: Document) => Document {
  const fields = Object.entries(group).map(
    ([name, spec]) => [name, name === '_id' ? value(spec) : accumulator(spec)] as const,
  );
  return (event) => {
    const row: Document = {};
    for (const [name, of] of fields) {
      const v = of(event);
      if (v !== undefined) row[name] = v;
    }
    return row;
  };
}

/** The fields of the events a `$group` reads (top-level names): the projection of the raw read. */
export function fieldsRead(group: Document): string[] {
  const out = new Set<string>();
  const visit = (spec: unknown): void => {
    if (typeof spec === 'string' && spec.startsWith('$')) out.add(spec.slice(1).split('.')[0]!);
    else if (Array.isArray(spec)) spec.forEach(visit);
    else if (spec && typeof spec === 'object') Object.values(spec).forEach(visit);
  };
  visit(group);
  return [...out].sort();
}

/** One accumulator over a group of one event: what `$sum`, `$max`, ... give for that event alone. */
function accumulator(spec: unknown): Value {
  const [op, arg] = operator(spec);
  const of = value(arg);
  switch (op) {
    case '$sum':
      // non-numbers count as nothing (as on the server)
      return (e) => {
        const v = of(e);
        return typeof v === 'number' ? v : 0;
      };
    case '$max':
    case '$min':
    case '$first':
    case '$last':
      return (e) => of(e) ?? null;
    default:
      throw new Error(`event rows: accumulator ${op} is not supported`);
  }
}

function value(spec: unknown): Value {
  if (typeof spec === 'string' && spec.startsWith('$')) return path(spec.slice(1).split('.'));
  if (spec === null || typeof spec !== 'object') return () => spec;
  if (Array.isArray(spec)) throw new Error('event rows: array expressions are not supported');
  const keys = Object.keys(spec);
  if (keys.length === 1 && keys[0]!.startsWith('$')) return expression(spec as Document);
  const parts = keys.map((k) => [k, value((spec as Document)[k])] as const);
  // an expression object leaves out the fields whose value is missing
  return (e) => {
    const out: Document = {};
    for (const [k, of] of parts) {
      const v = of(e);
      if (v !== undefined) out[k] = v;
    }
    return out;
  };
}

function expression(spec: Document): Value {
  const [op, arg] = operator(spec);
  switch (op) {
    case '$ifNull': {
      const [first, fallback] = (arg as unknown[]).map(value) as [Value, Value];
      return (e) => first(e) ?? fallback(e);
    }
    case '$hour': {
      const of = value(arg);
      return (e) => {
        const v = of(e);
        if (!(v instanceof Date)) throw new Error('event rows: $hour of a value that is not a date');
        return v.getUTCHours();
      };
    }
    default:
      throw new Error(`event rows: expression ${op} is not supported`);
  }
}

function operator(spec: unknown): [string, unknown] {
  const entries = spec && typeof spec === 'object' ? Object.entries(spec) : [];
  if (entries.length !== 1 || !entries[0]![0].startsWith('$'))
    throw new Error(`event rows: ${JSON.stringify(spec)} is not an operator`);
  return entries[0]!;
}

/** A field path; missing (undefined) as soon as a part is not an object. */
function path(parts: readonly string[]): Value {
  if (parts.length === 1) {
    const [name] = parts as [string];
    return (e) => e[name];
  }
  return (e) => {
    let v: unknown = e;
    for (const p of parts) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
      v = (v as Document)[p];
    }
    return v;
  };
}
