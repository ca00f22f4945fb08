import type { JsMsg } from '@nats-io/jetstream';
import { decodeEventMessage } from '@cm/contracts';
import type { EventsConfig } from '../config';
import { bucketName } from '../storage/bucket-naming';
import { toEventDocument, type EventDocument } from '../storage/event-document';
import { isPastRetention } from '../retention/expired-buckets';
import type { BucketWriter } from './bucket-writer';
import { deadLettered, dropped, duplicate, retry, written, type Outcome } from './consumer-outcome';
import type { DeadLetters } from './dead-letters';
import { retryDelay } from './consumer-outcome';
import type { InsertResult } from './insert-results';

const DAY_MS = 86_400_000;

export type BatchHandler = (msgs: JsMsg[]) => Promise<Outcome[]>;

export interface BatchHandlerDeps {
  writer: Pick<BucketWriter, 'write'>;
  deadLetters: Pick<DeadLetters, 'send'>;
  config: Pick<EventsConfig, 'BUCKET_PREFIX' | 'RETENTION_DAYS' | 'CONSUMER_MAX_WRITE_ATTEMPTS' | 'CONSUMER_RETRY_BASE_MS' | 'CONSUMER_RETRY_MAX_MS'>;
  now?: () => Date;
}

/**
 * One batch, start to end: decode every message (undecodable -> dead letter), group the rest by
 * UTC day bucket, write each group with one unordered insertMany, and give every message an
 * outcome. Never throws; what cannot be decided now is a retry.
 */
export function createBatchHandler(deps: BatchHandlerDeps): BatchHandler {
  const { config } = deps;
  const now = deps.now ?? (() => new Date());

  // msg.info parses the reply subject: only failures need the delivery count
  const delayFor = (msg: JsMsg): number => retryDelay(msg.info.deliveryCount, config.CONSUMER_RETRY_BASE_MS, config.CONSUMER_RETRY_MAX_MS);

  const afterWrite = (msg: JsMsg, result: InsertResult): { outcome?: Outcome; deadLetter?: string } => {
    switch (result.status) {
      case 'written':
        return { outcome: written };
      case 'duplicate':
        return { outcome: duplicate };
      case 'failed':
        // MongoDB unreachable or the write as a whole failed: always retried, never dropped
        return { outcome: retry(result.message, delayFor(msg)) };
      case 'rejected':
        // this document itself is refused: a few tries in case it was transient, then give up on it
        return msg.info.deliveryCount >= config.CONSUMER_MAX_WRITE_ATTEMPTS
          ? { deadLetter: `write rejected: ${result.message}` }
          : { outcome: retry(result.message, delayFor(msg)) };
    }
  };

  return async (msgs) => {
    const outcomes: (Outcome | undefined)[] = new Array(msgs.length);
    const toDeadLetter: { index: number; reason: string }[] = [];
    const buckets = new Map<string, { indexes: number[]; docs: EventDocument[] }>();
    const byDay = new Map<number, { indexes: number[]; docs: EventDocument[] }>();
    const at = now();

    msgs.forEach((msg, i) => {
      const decoded = decodeEventMessage(msg.data);
      if (!decoded.ok) {
        toDeadLetter.push({ index: i, reason: `undecodable: ${decoded.reason}` });
        return;
      }
      const doc = toEventDocument(decoded.value);
      if (isPastRetention(doc.created, at, config.RETENTION_DAYS)) {
        // its bucket is (or is about to be) dropped: writing would resurrect it without indexes
        outcomes[i] = dropped('older than the retention period');
        return;
      }
      // a batch nearly always spans one or two days: name each bucket once, not per message
      const day = Math.floor(doc.created.getTime() / DAY_MS);
      let group = byDay.get(day);
      if (!group) {
        group = { indexes: [], docs: [] };
        byDay.set(day, group);
        buckets.set(bucketName(config.BUCKET_PREFIX, doc.created), group);
      }
      group.indexes.push(i);
      group.docs.push(doc);
    });

    for (const [name, group] of buckets) {
      const results = await deps.writer.write(name, group.docs);
      group.indexes.forEach((msgIndex, j) => {
        const msg = msgs[msgIndex]!;
        const { outcome, deadLetter } = afterWrite(msg, results[j]!);
        if (deadLetter) toDeadLetter.push({ index: msgIndex, reason: deadLetter });
        else outcomes[msgIndex] = outcome;
      });
    }

    await Promise.all(
      toDeadLetter.map(async ({ index, reason }) => {
        const msg = msgs[index]!;
        try {
          await deps.deadLetters.send(msg, reason);
          outcomes[index] = deadLettered(reason);
        } catch (err) {
          // not in the DLQ yet, so it must not be terminated: try again later
          outcomes[index] = retry(`dead-letter publish failed: ${String(err)}`, delayFor(msg));
        }
      }),
    );
    return outcomes.map((o) => o ?? retry('no outcome', config.CONSUMER_RETRY_BASE_MS));
  };
}
