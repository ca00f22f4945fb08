import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { CATEGORIES, CONTENT_STATES, CONTENT_TYPES, DEVICE_TYPES, ERROR_CODES, OBJECTIVES } from './enums';
import {
  REPORT_INTERVALS,
  REPORT_METRIC_PATTERN,
  type CampaignScorecard,
  type ReportRow,
  type ScorecardQuery,
} from './events-types';
import { VERSION } from './version';

// the literal unions must not drift from the API documents they describe
const services = path.join(__dirname, '../../../services');
const management = parse(readFileSync(path.join(services, 'management', 'openapi.yaml'), 'utf8'));
const events = parse(readFileSync(path.join(services, 'events', 'openapi.yaml'), 'utf8'));

describe('client types and the OpenAPI documents', () => {
  test('when the management document lists enum values, then the client has exactly those', () => {
    const schemas = management.components.schemas;
    expect(CATEGORIES).toEqual(schemas.Category.enum);
    expect(OBJECTIVES).toEqual(schemas.Objective.enum);
    expect(CONTENT_TYPES).toEqual(schemas.ContentType.enum);
    expect(CONTENT_STATES).toEqual(schemas.Content.properties.state.enum);
    expect(ERROR_CODES).toEqual(schemas.Error.properties.error.properties.code.enum);
  });

  test('when the events document lists device types, then the client has exactly those', () => {
    expect(DEVICE_TYPES).toEqual(events.components.schemas.ReportQuery.properties.device_type.oneOf[0].enum);
  });

  test('when the events document lists report intervals, orders and metrics, then the client has exactly those', () => {
    const query = events.components.schemas.ReportQuery.properties;
    expect(REPORT_INTERVALS).toEqual(query.interval.enum);
    expect(REPORT_METRIC_PATTERN).toEqual(query.metrics.oneOf[1].items.pattern);
    for (const metric of [
      'count',
      'uniques',
      'conversion_rate',
      'frequency',
      'engaged_ms_p90',
      'value_sum',
      'scroll_depth_gte_50',
    ])
      expect(new RegExp(REPORT_METRIC_PATTERN).test(metric)).toBe(true);
  });

  test('when the events document describes a report row, then the client row has exactly its fields', () => {
    const row: Required<ReportRow> = {
      time: '',
      name: '',
      value: 0,
      content_id: '',
      url: '',
      country: '',
      below_floor: true,
      metadata: {},
      uniques: 0,
      uniques_exact: true,
      conversion_rate: 0,
      frequency_avg: 0,
      reach_1: 0,
      reach_2: 0,
      reach_3: 0,
      reach_5: 0,
      reach_10: 0,
      frequency_exact: true,
      frequency_error: 0,
    };
    expect(Object.keys(row).sort()).toEqual(Object.keys(events.components.schemas.ReportRow.properties).sort());
  });

  test('when the events document describes the scorecard, then the client types have exactly its fields', () => {
    const schemas = events.components.schemas;
    const query: Required<ScorecardQuery> = {
      owner_id: '',
      campaign: '',
      impression_name: '',
      click_name: '',
      engagement_name: '',
      attentive_ms: 0,
    };
    expect(Object.keys(query).sort()).toEqual(Object.keys(schemas.ScorecardQuery.properties).sort());
    const fields: Record<keyof CampaignScorecard, true> = {
      campaign: true,
      as_of: true,
      names: true,
      impressions: true,
      clicks: true,
      ctr: true,
      reach: true,
      frequency_avg: true,
      frequency: true,
      engagement: true,
      goal_progress: true,
      pacing: true,
      on_target: true,
      visitor_basis: true,
      caveats: true,
    };
    expect(Object.keys(fields).sort()).toEqual([...schemas.Scorecard.required].sort());
    expect(Object.keys(schemas.Scorecard.properties).sort()).toEqual([...schemas.Scorecard.required].sort());
    const campaign: Record<keyof CampaignScorecard['campaign'], true> = {
      token: true,
      name: true,
      start_date: true,
      end_date: true,
      timezone: true,
      reach_goal: true,
      objective: true,
      target_countries: true,
      target_source: true,
      url_count: true,
    };
    expect(Object.keys(campaign).sort()).toEqual([...schemas.Scorecard.properties.campaign.required].sort());
  });

  test('when the package is versioned, then VERSION (sent in the User-Agent) matches package.json', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8'));
    expect(VERSION).toBe(pkg.version);
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});
