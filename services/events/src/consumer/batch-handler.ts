import type { EventsConfig } from '../config';
import { isPastRetention } from '../retention/expired-buckets';
import { bucketName } from '../storage/bucket-naming';
import { toEventDocument, type EventDocument } from '../storage/event-document';
import { utcDayIndex } from '../storage/time-units';
import type { BucketWriter } from './bucket-writer';
import {
  deadLettered,
  dropped,
  duplicate,
  messageOutcome,
  retry,
  retryDelay,
  written,
  type EventOutcome,
  type Outcome,
} from './consumer-outcome';
import type { DeadLetters } from './dead-letters';
import type { Delivery } from './delivery';
import type { InsertResult } from './insert-results';
import { RejectionCounts } from './rejection-counts';

export type BatchHandler = (deliveries: Delivery[]) => Promise<Outcome[]>;

export interface BatchHandlerDeps {
  writer: Pick<BucketWriter, 'write'>;
  deadLetters: Pick<DeadLetters, 'send' | 'sendEvent'>;
  config: Pick<
    EventsConfig,
    | 'BUCKET_PREFIX'
    | 'RETENTION_DAYS'
    | 'CONSUMER_MAX_WRITE_ATTEMPTS'
    | 'CONSUMER_RETRY_BASE_MS'
    | 'CONSUMER_RETRY_MAX_MS'
  >;
  now?: () => Date;
  /** Refusals per event so far (the handler keeps its own unless given one). */
  rejections?: RejectionCounts;
}

/** Where one event of the batch came from: message `d`, event `e` of it. */
interface EventRef {
  d: number;
  e: number;
}

interface DayGroup {
  refs: EventRef[];
  docs: EventDocument[];
}

/**
 * One batch of messages, start to end: every event of every message (v1: one, v2 batch: many)
 * is grouped by UTC day bucket with the events of the other messages, each bucket is written
 * with one unordered insertMany, and every event gets its outcome; an event that cannot be read
 * or written is dead-lettered alone, a message that cannot be read at all is dead-lettered whole.
 * Each message's outcome follows from its events' (consumer-outcome.ts). Never throws; what
 * cannot be decided now is a retry.
 */
export function createBatchHandler(deps: BatchHandlerDeps): BatchHandler {
  const { config } = deps;
  const now = deps.now ?? (() => new Date());
  const rejections = deps.rejections ?? new RejectionCounts();
  const delayFor = (d: Delivery): number =>
    retryDelay(d.msg.info.deliveryCount, config.CONSUMER_RETRY_BASE_MS, config.CONSUMER_RETRY_MAX_MS);

  /** What a write result means for an event, given how often the database refused that event. */
  const afterWrite = (id: string, result: InsertResult): EventOutcome | 'dead_letter' => {
    switch (result.status) {
      case 'written':
        rejections.forget(id);
        return written;
      case 'duplicate':
        rejections.forget(id);
        return duplicate;
      case 'failed':
        // MongoDB unreachable, unavailable or full: always retried, never dropped, and never counted
        // as a refusal (an outage must not use up the event's attempts)
        return retry(result.message);
      case 'rejected':
        // this document itself is refused: a few tries in case it was transient, then give up on it
        return rejections.add(id) < config.CONSUMER_MAX_WRITE_ATTEMPTS ? retry(result.message) : 'dead_letter';
    }
  };

  return async (deliveries) => {
    const events: EventOutcome[][] = deliveries.map(
      (d) => new Array<EventOutcome>(d.payload.ok ? d.payload.events.length : 0),
    );
    const whole: (Outcome | undefined)[] = new Array(deliveries.length);
    const toDeadLetter: (EventRef & { reason: string; raw: unknown; id?: string })[] = [];
    const byDay = new Map<number, DayGroup & { bucket: string }>();
    const at = now();

    deliveries.forEach((d, di) => {
      if (!d.payload.ok) return;
      d.payload.events.forEach((event, ei) => {
        if (!event.ok) {
          toDeadLetter.push({ d: di, e: ei, reason: `invalid event: ${event.reason}`, raw: event.raw });
          return;
        }
        const doc = toEventDocument(event.value);
        // its bucket is (or is about to be) dropped: writing would resurrect it without indexes
        if (isPastRetention(doc.created, at, config.RETENTION_DAYS)) {
          events[di]![ei] = dropped('older than the retention period');
          return;
        }
        // a batch nearly always spans one or two days: name each bucket once, not per event
        const day = utcDayIndex(doc.created);
        let group = byDay.get(day);
        if (!group)
          byDay.set(day, (group = { bucket: bucketName(config.BUCKET_PREFIX, doc.created), refs: [], docs: [] }));
        group.refs.push({ d: di, e: ei });
        group.docs.push(doc);
      });
    });

    for (const group of byDay.values()) {
      const results = await deps.writer.write(group.bucket, group.docs);
      group.refs.forEach((ref, j) => {
        const id = group.docs[j]!._id;
        const outcome = afterWrite(id, results[j]!);
        if (outcome === 'dead_letter')
          toDeadLetter.push({
            ...ref,
            id,
            reason: `write rejected: ${(results[j] as { message: string }).message}`,
            raw: recordAt(deliveries, ref),
          });
        else events[ref.d]![ref.e] = outcome;
      });
    }

    await Promise.all([
      ...toDeadLetter.map(async ({ d, e, reason, raw, id }) => {
        try {
          await deps.deadLetters.sendEvent(deliveries[d]!.msg, e, raw, reason);
          if (id !== undefined) rejections.forget(id);
          events[d]![e] = deadLettered(reason);
        } catch (err) {
          // not in the DLQ yet: the message must come back
          events[d]![e] = retry(`dead-letter publish failed: ${String(err)}`);
        }
      }),
      ...deliveries.map(async (delivery, di) => {
        if (delivery.payload.ok) return;
        const reason = `undecodable: ${delivery.payload.reason}`;
        try {
          await deps.deadLetters.send(delivery.msg, reason);
          whole[di] = { kind: 'dead_lettered', reason };
        } catch (err) {
          whole[di] = {
            kind: 'retry',
            reason: `dead-letter publish failed: ${String(err)}`,
            delayMs: delayFor(delivery),
            events: [],
          };
        }
      }),
    ]);
    return deliveries.map(
      (d, di) =>
        whole[di] ??
        messageOutcome(
          Array.from(events[di]!, (o) => o ?? retry('no outcome')),
          () => delayFor(d),
        ),
    );
  };
}

/** The event as it came in the message (what a dead letter carries, so it can be replayed). */
function recordAt(deliveries: Delivery[], ref: EventRef): unknown {
  const payload = deliveries[ref.d]!.payload;
  const event = payload.ok ? payload.events[ref.e] : undefined;
  return event?.ok ? event.value : event;
}
