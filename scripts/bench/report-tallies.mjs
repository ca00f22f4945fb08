// The answers bench:report expects of its `tallied` scenarios (report-scenarios.mjs), tallied from
// the generated events as they are loaded: per row (name and group fields), the events counted
// and the distinct visitors. A report's counts must equal them exactly, its uniques must equal
// them where it says they are exact and be within UNIQUES_ERROR where they come from the sketch
// (0.81 % standard error: 3 % is beyond 3.5 standard errors), and a top-N must keep the groups
// that rank first (within that error where it ranks by uniques). Grouped by country, the service's
// country floor applies (REPORT_COUNTRY_FLOOR, 10 by default, as the bench's reporting app runs):
// countries with fewer distinct visitors in a row fold into one `below_floor` row per name and
// other group fields (`unknown` never folds), so the tally folds them the same way.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

const UNIQUES_ERROR = 0.03;
// what a report may filter and group by besides the name (services/events/dist/storage/dimensions.js)
const { DIMENSIONS } = require(path.join(root, 'services/events/dist/storage/dimensions'));
const asList = (v) => (v === undefined ? [] : Array.isArray(v) ? v : String(v).split(','));
// a stored event's value as a report shows it: an event without a country is "unknown"
const shown = (doc, d) => (d === 'country' ? (doc.country ?? 'unknown') : (doc[d] ?? ''));

/** What the report of one scenario counts: its names, filters, group fields and whether it asks uniques. */
function questionOf(body) {
  const names = asList(body.name);
  const filters = DIMENSIONS.filter((d) => body[d] !== undefined).map((d) => [d, new Set(asList(body[d]))]);
  const groupBy = asList(body.group_by);
  const uniques = asList(body.metrics).includes('uniques');
  // the floor compares each country row's distinct visitors, whether the report shows them or not
  return { names, filters, groupBy, uniques, visitors: uniques || groupBy.includes('country') };
}

/** The groups as a report with the country floor shows them: small countries folded into `below_floor`. */
function folded(question, groups, floor) {
  const at = question.groupBy.indexOf('country');
  if (at < 0 || floor <= 0) return groups;
  const out = new Map();
  for (const [key, group] of groups) {
    const parts = key.split('\u0000');
    const country = parts[at + 1];
    if (country !== 'unknown' && group.visitors.size < floor) parts[at + 1] = 'below_floor';
    const target = parts.join('\u0000');
    const into = out.get(target);
    if (!into) out.set(target, { count: group.count, visitors: new Set(group.visitors) });
    else {
      into.count += group.count;
      for (const v of group.visitors) into.visitors.add(v);
    }
  }
  return out;
}

export class ScenarioTallies {
  /**
   * For the scenarios of `list` marked `tallied`: each must span every loaded event and ask no
   * series. `countryFloor`: the reporting service's REPORT_COUNTRY_FLOOR (its default, 10).
   */
  constructor(list, { countryFloor = 10 } = {}) {
    this.countryFloor = countryFloor;
    this.tallies = list
      .filter((s) => s.tallied)
      .map((s) => ({ scenario: s, question: questionOf(s.body), groups: new Map() }));
  }

  /** One loaded event of the reported owner, not a bot. */
  add(doc) {
    for (const { question, groups } of this.tallies) {
      if (question.names.length > 0 && !question.names.includes(doc.name)) continue;
      if (!question.filters.every(([d, values]) => values.has(shown(doc, d)))) continue;
      const key = [doc.name, ...question.groupBy.map((d) => shown(doc, d))].join('\u0000');
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { count: 0, visitors: question.visitors ? new Set() : undefined }));
      group.count++;
      group.visitors?.add(doc.visitor);
    }
  }

  /**
   * `rows`, the report's answer to `scenario`, against the tally: `problems` (empty when it is
   * right), the rows and groups, and the largest relative error of its sketched uniques.
   */
  check(scenario, rows) {
    const tally = this.tallies.find((t) => t.scenario === scenario);
    const { question } = tally;
    const groups = folded(question, tally.groups, this.countryFloor);
    const { body } = scenario;
    const problems = [];
    let maxError = 0;
    const keyOf = (row) => [row.name, ...question.groupBy.map((d) => row[d])].join('\u0000');
    const returned = new Set();
    for (const row of rows) {
      const key = keyOf(row);
      returned.add(key);
      const truth = groups.get(key);
      if (!truth) {
        problems.push(`a row no loaded event has: ${JSON.stringify(row)}`);
        continue;
      }
      if (row.value !== truth.count) problems.push(`${key}: value ${row.value}, loaded ${truth.count}`);
      if (!question.uniques) continue;
      const distinct = truth.visitors.size;
      const error = (row.uniques - distinct) / distinct;
      if (row.uniques_exact ? error !== 0 : Math.abs(error) > UNIQUES_ERROR)
        problems.push(`${key}: uniques ${row.uniques}${row.uniques_exact ? ' (exact)' : ''}, loaded ${distinct}`);
      if (!row.uniques_exact) maxError = Math.max(maxError, Math.abs(error));
    }
    if (body.limit === undefined) {
      if (rows.length !== groups.size)
        problems.push(`${rows.length} rows, the loaded events have ${groups.size} groups`);
    } else {
      if (rows.length !== Math.min(body.limit, groups.size))
        problems.push(`${rows.length} rows for the top ${body.limit} of ${groups.size} groups`);
      // every group left out must rank after every group kept (by uniques: within twice the error)
      const byUniques = body.order_by === 'uniques';
      const measure = (g) => (byUniques ? g.visitors.size : g.count);
      const kept = [...returned].map((k) => groups.get(k)).filter(Boolean);
      const lowest = Math.min(...kept.map(measure));
      const slack = byUniques ? 1 + 2 * UNIQUES_ERROR : 1;
      for (const [key, g] of groups)
        if (!returned.has(key) && measure(g) > lowest * slack)
          problems.push(`${key} (${measure(g)}) left out of the top ${body.limit}, whose lowest has ${lowest}`);
    }
    return { problems, rows: rows.length, groups: groups.size, maxError };
  }
}
