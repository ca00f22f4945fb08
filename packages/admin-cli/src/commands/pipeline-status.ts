import type { Command } from '../command';
import { formatFields } from '../format/table';
import { formatBytes, formatCount, formatSeconds } from '../format/units';
import { PROGRAM } from '../global-options';

/** The answer of GET /admin/v1/pipeline (times `YYYY-mm-dd HH:MM:SS` UTC or null). */
export interface PipelineView {
  stream: {
    name: string;
    subjects: string[];
    messages: number;
    bytes: number;
    first_seq: number;
    first_ts: string | null;
    last_seq: number;
    last_ts: string | null;
    consumer_count: number;
    duplicate_window_seconds: number;
    max_age_seconds: number;
    max_bytes: number;
    replicas: number;
  };
  consumer: {
    name: string;
    num_pending: number;
    num_ack_pending: number;
    num_redelivered: number;
    num_waiting: number;
    last_delivered: DeliveryPoint;
    last_acked: DeliveryPoint;
  } | null;
  dead_letters: { name: string; messages: number; bytes: number; last_ts: string | null } | null;
}

interface DeliveryPoint {
  stream_seq: number;
  consumer_seq: number;
  last_active: string | null;
}

const at = (ts: string | null) => (ts ? ` at ${ts}` : '');

function point(p: DeliveryPoint): string {
  return p.stream_seq === 0 ? 'none yet' : `stream seq ${formatCount(p.stream_seq)}${at(p.last_active)}`;
}

export function formatPipeline(p: PipelineView): string {
  const s = p.stream;
  const lines = [
    `Stream ${s.name} (${s.subjects.join(', ')})`,
    formatFields(
      [
        [
          'messages',
          `${formatCount(s.messages)} (${formatBytes(s.bytes)}; limit ${formatBytes(s.max_bytes)}, max age ${formatSeconds(s.max_age_seconds)})`,
        ],
        ['first', s.messages > 0 ? `seq ${formatCount(s.first_seq)}${at(s.first_ts)}` : 'none'],
        ['last', s.last_seq > 0 ? `seq ${formatCount(s.last_seq)}${at(s.last_ts)}` : 'none'],
        ['dedupe window', formatSeconds(s.duplicate_window_seconds)],
        ['replicas', String(s.replicas)],
      ],
      '  ',
    ),
    '',
  ];
  const c = p.consumer;
  if (c) {
    lines.push(
      `Consumer ${c.name}`,
      formatFields(
        [
          ['lag (not yet delivered)', formatCount(c.num_pending)],
          ['in flight (unacked)', formatCount(c.num_ack_pending)],
          ['redelivered', formatCount(c.num_redelivered)],
          ['waiting pulls', formatCount(c.num_waiting)],
          ['last delivered', point(c.last_delivered)],
          ['last acked', point(c.last_acked)],
        ],
        '  ',
      ),
    );
  } else {
    lines.push('Consumer: not created yet (no consumer process has started against this stream)');
  }
  lines.push('');
  const d = p.dead_letters;
  if (d)
    lines.push(
      `Dead letters ${d.name}`,
      formatFields(
        [
          ['messages', `${formatCount(d.messages)} (${formatBytes(d.bytes)})`],
          ['last', d.last_ts ?? 'none'],
        ],
        '  ',
      ),
    );
  else lines.push('Dead letters: stream not found');
  return lines.join('\n');
}

export const pipelineStatus: Command = {
  group: 'pipeline',
  verb: 'status',
  summary: 'Show the event stream, the consumer lag and dead letters',
  description: [
    'Calls GET /admin/v1/pipeline on the events service (a process with the consumer or reporting',
    'role). "lag" is the number of events stored in the stream and not yet delivered to the',
    'writer consumer; "in flight" were delivered and await their MongoDB write. A growing lag means',
    'the consumers write slower than ingest; events older than the stream max age are lost from it.',
    'Dead letters are messages that can never be stored (see docs/operations.md, section 5.1).',
  ].join('\n'),
  options: {},
  positionals: [],
  examples: [`${PROGRAM} pipeline status`, `${PROGRAM} pipeline status --json | jq .consumer.num_pending`],
  service: 'events',
  async run(ctx) {
    const view = await ctx.api.request<PipelineView>('events', 'GET', '/admin/v1/pipeline');
    return { json: view, text: formatPipeline(view) };
  },
};
