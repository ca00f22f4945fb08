import type { Logger } from '@cm/platform';

export interface BoundedPublisherDeps {
  /** Names the registry in logs ("owner registry"). */
  what: string;
  /** The log field that names an id ("user_id"). */
  idField: string;
  /** Publishes the current record of one id (built from the current documents). */
  publish(id: string): Promise<void>;
  /** Ids whose current record is not yet known to be published, at most `limit`. */
  pending(limit: number): Promise<string[]>;
  logger: Logger;
  /** How long a request waits for its announcement before leaving it to the relay. */
  syncTimeoutMs: number;
}

/** Pending ids the relay publishes per run. */
const RELAY_BATCH = 1000;

/**
 * Publishes a registry's records after the writes that made them pending: at once, with the
 * request waiting at most `syncTimeoutMs`, and whatever is still pending later through the relay
 * (NATS down, a crash). Publishing is idempotent and compare-and-set on the revision, so repeats,
 * races and reordering are harmless.
 */
export class BoundedPublisher {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: BoundedPublisherDeps) {}

  /** After a write that set the pending announcement: publish now, bounded; never throws. */
  announce(id: string): Promise<void> {
    return this.bounded(this.deps.publish(id), id);
  }

  /** The same for several ids, one after the other, under one bound. */
  announceAll(ids: readonly string[], label: string): Promise<void> {
    return this.bounded(
      (async () => {
        for (const id of ids) await this.deps.publish(id);
      })(),
      label,
    );
  }

  /** Publishes what is still pending; returns how many were published. */
  async relayPending(): Promise<number> {
    let published = 0;
    for (const id of await this.deps.pending(RELAY_BATCH)) {
      await this.deps.publish(id);
      published++;
    }
    if (published > 0) this.deps.logger.info(`${this.deps.what} relayed`, { count: published });
    return published;
  }

  /** Waits for announcements still running after their requests answered. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async bounded(publishing: Promise<void>, id: string): Promise<void> {
    this.inFlight.add(publishing);
    void publishing.catch(() => undefined).finally(() => this.inFlight.delete(publishing));
    const { logger, what, idField, syncTimeoutMs } = this.deps;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), syncTimeoutMs)));
    try {
      if ((await Promise.race([publishing, late])) === 'late')
        logger.warn(`${what} publish is slow; the relay will finish it`, { [idField]: id });
    } catch (err) {
      logger.warn(`${what} publish deferred to the relay`, { [idField]: id, error: String(err) });
    } finally {
      clearTimeout(timer);
    }
  }
}
