import type { Logger } from '@cm/platform';
import { fileVersion, readCountryDatabase, type FileVersion } from './country-database';
import type { CountryLookup } from './country-lookup';
import type { CountryMetrics } from './country-metrics';

export interface CountryReloaderDeps {
  path: string;
  /** The version of the file loaded at start. */
  version: FileVersion;
  intervalMs: number;
  lookup: Pick<CountryLookup, 'replace'>;
  metrics: Pick<CountryMetrics, 'loaded' | 'reloadFailed'>;
  logger: Logger;
}

/**
 * Looks at the country file every `intervalMs` and loads it again when it changed, so a newer
 * database needs no restart. A changed file that cannot be used is refused with a warning while
 * the one in use stays (it was good, and dropping it would make every country unknown); it is
 * tried again once the file changes again. Polling the file's identity (inode, size, mtime) sees
 * an atomic rename and a volume's symlink swap alike, which a file watcher can miss.
 */
export class CountryReloader {
  private timer: NodeJS.Timeout | undefined;
  private version: FileVersion;
  private checking: Promise<void> | undefined;

  constructor(private readonly deps: CountryReloaderDeps) {
    this.version = deps.version;
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  /** One look at the file (the timer calls it; exported for tests). Never throws. */
  check(): Promise<void> {
    this.checking ??= this.reloadIfChanged().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async reloadIfChanged(): Promise<void> {
    const { path, lookup, metrics, logger } = this.deps;
    let version: FileVersion;
    try {
      version = await fileVersion(path);
    } catch {
      // gone for a moment (being replaced) or for good: the database in use stays, and a file that
      // appears again is a change
      this.version = 'absent';
      return;
    }
    if (version === this.version) return;
    this.version = version;
    try {
      const loaded = await readCountryDatabase(path);
      // changed again while being read: the next look loads the newest
      this.version = loaded.version;
      lookup.replace(loaded.database);
      metrics.loaded(loaded.database.builtAt);
      logger.info('country database reloaded', { path, built: loaded.database.builtAt.toISOString() });
    } catch (err) {
      metrics.reloadFailed();
      logger.warn('country database file changed but cannot be used; the previous one stays in use', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
