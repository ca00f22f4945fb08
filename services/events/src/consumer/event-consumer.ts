import type { Consumer, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@cm/platform';
import type { EventsConfig } from '../config';
import type { BatchHandler } from './batch-handler';
import type { ConsumerMetrics } from './consumer-metrics';
import { retry, settle, type Outcome } from './consumer-outcome';

export interface EventConsumerDeps {
  js: JetStreamClient;
  handler: BatchHandler;
  metrics: ConsumerMetrics;
  logger: Logger;
  config: Pick<EventsConfig, 'EVENTS_STREAM' | 'CONSUMER_DURABLE' | 'CONSUMER_BATCH_SIZE' | 'CONSUMER_MAX_WAIT_MS' | 'CONSUMER_RETRY_BASE_MS'>;
}

// the client refuses pull requests shorter than 1 s; CONSUMER_MAX_WAIT_MS below that is
// honoured by the batch timer instead, while the pull request stays open
const MIN_FETCH_EXPIRES_MS = 1000;

/**
 * Pulls from the durable consumer and hands batches of up to CONSUMER_BATCH_SIZE messages to
 * the handler; a partial batch goes after CONSUMER_MAX_WAIT_MS. One batch is written while the
 * next one is fetched. Each message is settled from its outcome (consumer-outcome.ts) right
 * after its batch was written. stop() lets the open pull request finish (at most ~1 s), writes
 * and settles everything in hand, then resolves: nothing fetched is left unacknowledged.
 */
export class EventConsumer {
  private stopping = false;
  private loop?: Promise<void>;
  private pending: JsMsg[] = [];
  private timer?: NodeJS.Timeout;
  private tail: Promise<void> = Promise.resolve();

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
        for await (const msg of messages) await this.add(msg);
      } catch (err) {
        logger.warn('consumer pull failed; retrying', { error: String(err) });
        consumer = undefined;
        if (!this.stopping) await new Promise((r) => setTimeout(r, 1000));
      }
    }
    await this.flush();
    await this.tail;
  }

  private async add(msg: JsMsg): Promise<void> {
    this.pending.push(msg);
    if (this.pending.length >= this.deps.config.CONSUMER_BATCH_SIZE) await this.flush();
    else if (this.pending.length === 1) this.timer = setTimeout(() => void this.flush(), this.deps.config.CONSUMER_MAX_WAIT_MS);
  }

  /** Queues the batch in hand behind the one being written and waits for that one (backpressure). */
  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const previous = this.tail;
    this.tail = previous.then(() => this.process(batch));
    await previous;
  }

  private async process(batch: JsMsg[]): Promise<void> {
    const { handler, metrics, logger, config } = this.deps;
    const started = process.hrtime.bigint();
    let outcomes: Outcome[];
    try {
      outcomes = await handler(batch);
    } catch (err) {
      logger.error('batch handler failed', { error: String(err) });
      outcomes = batch.map(() => retry('handler failed', config.CONSUMER_RETRY_BASE_MS));
    }
    let notWritten = 0;
    let firstReason = '';
    batch.forEach((msg, i) => {
      const outcome = outcomes[i]!;
      try {
        settle(msg, outcome);
      } catch (err) {
        // connection gone: the server redelivers after ack_wait, and the _id makes that harmless
        logger.warn('could not settle message', { error: String(err), stream_seq: msg.seq });
      }
      metrics.outcome(outcome.kind);
      if (msg.info.deliveryCount > 1) metrics.redelivered();
      if (outcome.kind === 'retry' || outcome.kind === 'dead_lettered') {
        notWritten++;
        firstReason ||= `${outcome.kind}: ${outcome.reason}`;
      }
    });
    // one line per batch, not per message: an outage would otherwise flood the log
    if (notWritten > 0) logger.warn('events not written', { count: notWritten, batch: batch.length, first_reason: firstReason });
    metrics.pending(batch[batch.length - 1]!.info.pending);
    metrics.batch(batch.length, Number(process.hrtime.bigint() - started) / 1e9);
  }
}
