import { lookupAddress } from './country-address';
import type { CountryDatabase } from './country-database';
import type { CountryMetrics } from './country-metrics';

/**
 * The country of a client address, for the pixel: an ISO 3166-1 alpha-2 code, or undefined when it
 * is unknown (an address without a place, one the database does not know, no database). The
 * address is only looked at, never kept, logged or counted by value.
 */
export class CountryLookup {
  constructor(
    private database: CountryDatabase | undefined,
    private readonly metrics: Pick<CountryMetrics, 'looked'>,
  ) {}

  of(address: string): string | undefined {
    const database = this.database;
    if (database === undefined) {
      this.metrics.looked('no_database');
      return undefined;
    }
    const target = lookupAddress(address);
    if (target === undefined) {
      this.metrics.looked('not_public');
      return undefined;
    }
    const country = database.country(target);
    this.metrics.looked(country === undefined ? 'not_found' : 'known');
    return country;
  }

  /** A newer file, checked already: lookups use it from the next hit on. */
  replace(database: CountryDatabase): void {
    this.database = database;
  }
}
