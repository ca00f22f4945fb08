import { prom, type Registry } from '@cm/platform';

/** Why a lookup found no country; `known` when it found one. */
export type CountryOutcome = 'known' | 'not_public' | 'not_found' | 'no_database';

export interface CountryMetrics {
  looked(outcome: CountryOutcome): void;
  /** A database is in use (at start or after a reload): its build date. */
  loaded(builtAt: Date): void;
  /** A changed file could not be loaded: the one before stays in use. */
  reloadFailed(): void;
}

const LABELS: Record<CountryOutcome, { outcome: string; reason: string }> = {
  known: { outcome: 'known', reason: '' },
  not_public: { outcome: 'unknown', reason: 'not_public' },
  not_found: { outcome: 'unknown', reason: 'not_found' },
  no_database: { outcome: 'unknown', reason: 'no_database' },
};

export function createCountryMetrics(registry: Registry): CountryMetrics {
  // counted in plain numbers and handed to the counter at scrape time: every stored hit counts one
  // lookup, and prom-client's inc() builds its label key on every call, even on a bound child
  const counts: Record<CountryOutcome, number> = { known: 0, not_public: 0, not_found: 0, no_database: 0 };
  new prom.Counter({
    name: 'events_country_lookups_total',
    help: 'Country lookups of stored pixel hits by outcome (known, unknown) and, for unknown, the reason (not_public: private, loopback, link-local or reserved address, often a wrong PIXEL_TRUSTED_PROXY_HOPS; not_found: not in the database; no_database: COUNTRY_DB_PATH=none)',
    labelNames: ['outcome', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const outcome of Object.keys(counts) as CountryOutcome[]) this.inc(LABELS[outcome], counts[outcome]);
    },
  });
  const built = new prom.Gauge({
    name: 'events_country_database_build_timestamp_seconds',
    help: 'When the country database in use was built (Unix seconds, from its metadata): how stale the countries are',
    registers: [registry],
  });
  const reloads = new prom.Counter({
    name: 'events_country_database_reloads_total',
    help: 'Country database files loaded after a change of the file (loaded), or refused while the previous one stays in use (failed)',
    labelNames: ['result'],
    registers: [registry],
  });
  const reloaded = reloads.labels('loaded');
  const failed = reloads.labels('failed');
  // both series exist from the start, so increase() sees the first refusal
  reloaded.inc(0);
  failed.inc(0);
  let first = true;
  return {
    looked(outcome) {
      counts[outcome]++;
    },
    loaded(builtAt) {
      built.set(builtAt.getTime() / 1000);
      if (!first) reloaded.inc();
      first = false;
    },
    reloadFailed: () => failed.inc(),
  };
}
