import { formatAccount } from './account-create';
import { formatRetentionRun } from './buckets-drop-expired';
import { formatIssuedKey } from './keys-create';
import { formatKeyList } from './keys-list';
import { formatPipeline, type PipelineView } from './pipeline-status';
import { formatRollupStatus } from './rollups-status';
import { formatRekey } from './tokens-rekey';

const pipeline: PipelineView = {
  stream: {
    name: 'EVENTS',
    subjects: ['events.v1.>'],
    messages: 1234567,
    bytes: 5 * 1024 * 1024,
    first_seq: 10,
    first_ts: '2026-03-01 00:00:00',
    last_seq: 1234576,
    last_ts: '2026-03-04 06:00:00',
    consumer_count: 1,
    duplicate_window_seconds: 300,
    max_age_seconds: 259200,
    max_bytes: -1,
    replicas: 3,
  },
  consumer: {
    name: 'events-writer',
    num_pending: 4200,
    num_ack_pending: 500,
    num_redelivered: 2,
    num_waiting: 1,
    last_delivered: { stream_seq: 1230376, consumer_seq: 1230380, last_active: '2026-03-04 06:00:00' },
    last_acked: { stream_seq: 0, consumer_seq: 0, last_active: null },
  },
  dead_letters: { name: 'EVENTS_DLQ', messages: 3, bytes: 900, last_ts: '2026-03-02 10:00:00' },
};

describe('human output', () => {
  test('when the pipeline is shown, then stream size, lag, in-flight, redeliveries and dead letters are readable', () => {
    const text = formatPipeline(pipeline);
    expect(text).toContain('Stream EVENTS (events.v1.>)');
    expect(text).toMatch(/messages\s+1,234,567 \(5\.0 MiB; limit unlimited, max age 72 h\)/);
    expect(text).toMatch(/dedupe window\s+5 min/);
    expect(text).toMatch(/replicas\s+3/);
    expect(text).toMatch(/lag \(not yet delivered\)\s+4,200/);
    expect(text).toMatch(/in flight \(unacked\)\s+500/);
    expect(text).toMatch(/redelivered\s+2/);
    expect(text).toMatch(/last delivered\s+stream seq 1,230,376 at 2026-03-04 06:00:00/);
    expect(text).toMatch(/last acked\s+none yet/);
    expect(text).toMatch(/Dead letters EVENTS_DLQ\n\s+messages\s+3 \(900 B\)\n\s+last\s+2026-03-02 10:00:00/);
  });

  test('when there is no consumer, no dead-letter stream and an empty stream, then each says so', () => {
    const text = formatPipeline({
      ...pipeline,
      stream: { ...pipeline.stream, messages: 0, first_seq: 0, last_seq: 0, first_ts: null, last_ts: null },
      consumer: null,
      dead_letters: null,
    });
    expect(text).toMatch(/first\s+none/);
    expect(text).toMatch(/last\s+none/);
    expect(text).toContain('Consumer: not created yet');
    expect(text).toContain('Dead letters: stream not found');
  });

  test('when keys are listed, then one row per key with at most three owner ids, or a sentence when there are none', () => {
    const text = formatKeyList([
      { id: 'k1', created: '2026-03-01 00:00:00', owner_ids: ['1'] },
      { id: 'k2', created: '2026-03-02 00:00:00', owner_ids: ['1', '2', '3', '4', '5'] },
    ]);
    expect(text.split('\n')).toEqual([
      'ID  CREATED (UTC)        OWNER IDS',
      'k1  2026-03-01 00:00:00  1',
      'k2  2026-03-02 00:00:00  1,2,3 (+2 more)',
    ]);
    expect(formatKeyList([])).toBe('No API keys.');
  });

  test('when a key or an account is issued, then its secret is in the output once', () => {
    const key = formatIssuedKey({ id: 'k1', api_key: 'ek_secret', owner_ids: ['1', '2'] });
    expect(key).toMatch(/owner_ids\s+1, 2/);
    expect(key.split('ek_secret')).toHaveLength(2);
    const account = formatAccount({
      unique_id: '17',
      email: 'a@example.com',
      user_name: 'a@example.com',
      api_token: 'Tk_s3cret',
    });
    expect(account).toMatch(/unique_id\s+17\n/);
    expect(account.split('Tk_s3cret')).toHaveLength(2);
  });

  test('when retention ran, then dropped buckets are listed with the count kept; a dry run says nothing was dropped', () => {
    expect(
      formatRetentionRun({
        dry_run: false,
        retention_days: 10,
        dropped: ['events_20250101', 'events_20250102'],
        kept: 1,
      }),
    ).toBe(
      'Dropped 2 expired day buckets (retention 10 days):\n  events_20250101\n  events_20250102\n1 day bucket kept.',
    );
    expect(formatRetentionRun({ dry_run: true, retention_days: 10, dropped: ['events_20250101'], kept: 3 })).toMatch(
      /^Would drop 1 expired day bucket \(dry run: nothing was dropped/,
    );
    expect(formatRetentionRun({ dry_run: false, retention_days: 400, dropped: [], kept: 0 })).toBe(
      'No day bucket is past the 400-day retention. 0 day buckets kept.',
    );
  });

  test('when tokens are rekeyed, then the counts are shown and whether old keys may go', () => {
    expect(formatRekey({ rekeyed: 3, unreadable: 0, remaining: 0 })).toBe(
      '3 api tokens brought to the current keys; 0 remaining.\nEvery token is on the current keys: keys that are no longer first may be removed.',
    );
    expect(formatRekey({ rekeyed: 1, unreadable: 2, remaining: 2 })).toMatch(
      /^1 api token brought[\s\S]*2 cannot be opened[\s\S]*put the removed key back/,
    );
  });
});

describe('formatRollupStatus', () => {
  test('when nothing is dirty, then it says rollups caught up; otherwise it lists the dirty sizes and the oldest hour', () => {
    expect(
      formatRollupStatus({ dirty_units: { '1h': 0, '1d': 0 }, oldest_dirty_hour: null, pending_generations: 0 }),
    ).toBe('Rollups caught up: no unit written to since it was built.\nBuilds in flight: 0');
    expect(
      formatRollupStatus({
        dirty_units: { '1h': 3, '1d': 1, '2d': 0 },
        oldest_dirty_hour: '2026-10-01T05:00:00.000Z',
        pending_generations: 2,
      }),
    ).toBe(
      'Dirty units (answered from smaller units or raw events until rebuilt): 1h 3, 1d 1\nOldest dirty hour: 2026-10-01T05:00:00.000Z\nBuilds in flight: 2',
    );
  });
});
