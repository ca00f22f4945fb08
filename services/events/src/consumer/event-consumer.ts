import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@cm/platform';
import type { EventsConfig } from '../config';
import type { BatchHandler } from './batch-handler';
import type { ConsumerMetrics } from './consumer-metrics';
import { settle, type EventOutcome, type Outcome, type Settlement } from './consumer-outcome';
import { deliveryCount } from './delivery-count';
import { eventCount, toDelivery, type Delivery } from './delivery';

export interface EventConsumerDeps {
  js: JetStreamClient;
  handler: BatchHandler;
  metrics: ConsumerMetrics;
  logger: Logger;
  config: Pick<
    EventsConfig,
    'EVENTS_STREAM' | 'CONSUMER_DURABLE' | 'CONSUMER_BATCH_SIZE' | 'CONSUMER_MAX_WAIT_MS' | 'CONSUMER_RETRY_BASE_MS'
  >;
}

// the client refuses pull requests shorter than 1 s; CONSUMER_MAX_WAIT_MS below that is
// honoured by the batch timer instead, while the pull request stays open
const MIN_FETCH_EXPIRES_MS = 1000;

// Two batches at once: one is decoded while the other is being written, and MongoDB gets two
// inserts to work on. A third batch fills meanwhile (hence max_ack_pending >= 3 batches).
const MAX_IN_FLIGHT = 2;

/**
 * Pulls from the durable consumer, decodes each message as it arrives, and hands batches of about
 * CONSUMER_BATCH_SIZE events (whole messages: a v2 message carries many) to the handler; a
 * partial batch goes after CONSUMER_MAX_WAIT_MS. Up to two batches are handled at once while the
 * next one is fetched; when both slots are taken, fetching waits (backpressure).
 * Each message is settled from its outcome (consumer-outcome.ts) right after its batch was
 * written. stop() lets the open pull request finish (at most ~1 s), writes and settles
 * everything in hand, then resolves: nothing fetched is left unacknowledged.
 */
export class EventConsumer {
  private stopping = false;
  private loop?: Promise<void>;
  private pending: Delivery[] = [];
  private pendingEvents = 0;
  private timer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  private freeSlots = MAX_IN_FLIGHT;
  private readonly slotWaiters: (() => void)[] = [];

  constructor(private readonly deps: EventConsumerDeps) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { config, logger } = this.deps;
    const expires = Math.max(MIN_FETCH_EXPIRES_MS, config.CONSUMER_MAX_WAIT_MS);
    let consumer: Consumer | undefined;
    while (!this.stopping) {
      try {
        consumer ??= await this.deps.js.consumers.get(config.EVENTS_STREAM, config.CONSUMER_DURABLE);
        const messages = await consumer.fetch({ max_messages: config.CONSUMER_BATCH_SIZE, expires });
        for await (const msg of messages) {
          // only a full batch waits (for a free slot); the common case stays synchronous
          if (this.add(msg)) await this.flush();
        }
      } catch (err) {
        logger.warn('consumer pull failed; retrying', { error: String(err) });
        consumer = undefined;
        if (!this.stopping) await new Promise((r) => setTimeout(r, 1000));
      }
    }
    await this.flush();
    await Promise.all(this.inFlight);
  }

  /** Adds a message to the batch in hand; true when the batch holds enough events and must be flushed. */
  private add(msg: JsMsg): boolean {
    const delivery = toDelivery(msg);
    this.pending.push(delivery);
    this.pendingEvents += eventCount(delivery);
    if (this.pendingEvents >= this.deps.config.CONSUMER_BATCH_SIZE) return true;
    if (this.pending.length === 1)
      this.timer = setTimeout(() => void this.flush(), this.deps.config.CONSUMER_MAX_WAIT_MS);
    return false;
  }

  /** Hands the batch in hand to the handler once a slot is free; resolves when it has started. */
  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingEvents = 0;
    await this.acquireSlot();
    const handled: Promise<void> = this.process(batch).finally(() => {
      this.inFlight.delete(handled);
      this.releaseSlot();
    });
    this.inFlight.add(handled);
  }

  private async acquireSlot(): Promise<void> {
    if (this.freeSlots > 0) {
      this.freeSlots--;
      return;
    }
    await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  /** A freed slot goes straight to the next waiter, so never more than MAX_IN_FLIGHT run. */
  private releaseSlot(): void {
    const next = this.slotWaiters.shift();
    if (next) next();
    else this.freeSlots++;
  }

  private async process(batch: Delivery[]): Promise<void> {
    const { handler, metrics, logger, config } = this.deps;
    const started = process.hrtime.bigint();
    let outcomes: Outcome[];
    try {
      outcomes = await handler(batch);
    } catch (err) {
      logger.error('batch handler failed', { error: String(err) });
      outcomes = batch.map(() => ({
        kind: 'retry',
        reason: 'handler failed',
        delayMs: config.CONSUMER_RETRY_BASE_MS,
        events: [],
      }));
    }
    const events = new Map<EventOutcome['kind'], number>();
    const settled = new Map<Settlement['action'], number>();
    let redelivered = 0;
    let eventTotal = 0;
    let firstReason = '';
    batch.forEach(({ msg }, i) => {
      const outcome = outcomes[i]!;
      try {
        const action = settle(msg, outcome);
        settled.set(action, (settled.get(action) ?? 0) + 1);
      } catch (err) {
        // connection gone: the server redelivers after ack_wait, and the _id makes that harmless
        logger.warn('could not settle message', { error: String(err), stream_seq: msg.seq });
      }
      if (outcome.kind === 'dead_lettered') {
        events.set('dead_lettered', (events.get('dead_lettered') ?? 0) + 1);
        eventTotal++;
      } else {
        for (const e of outcome.events) events.set(e.kind, (events.get(e.kind) ?? 0) + 1);
        eventTotal += outcome.events.length;
      }
      if (deliveryCount(msg) > 1) redelivered++;
      if (outcome.kind !== 'done') firstReason ||= `${outcome.kind}: ${outcome.reason}`;
    });
    for (const [kind, n] of events) metrics.events(kind, n);
    for (const [action, n] of settled) metrics.settled(action, n);
    if (redelivered > 0) metrics.redelivered(redelivered);
    const notWritten = (events.get('retry') ?? 0) + (events.get('dead_lettered') ?? 0);
    // one line per batch, not per message: an outage would otherwise flood the log
    if (notWritten > 0)
      logger.warn('events not written', { count: notWritten, batch: eventTotal, first_reason: firstReason });
    metrics.pending(batch[batch.length - 1]!.msg.info.pending);
    metrics.batch(batch.length, eventTotal, Number(process.hrtime.bigint() - started) / 1e9);
  }
}
