import { readFile, stat } from 'node:fs/promises';
import { Reader, type Response as MmdbRecord } from 'maxmind';
import { isCountryCode } from '@cm/contracts';
import { ConfigError } from '@cm/platform';

/**
 * What a record of a country database may hold: `country_code` (the files of the bundled package)
 * or `country.iso_code` (the layout of DB-IP's own downloads and of GeoIP2-style country and city
 * files). Anything else in a record is ignored.
 */
interface CountryRecord {
  country_code?: unknown;
  country?: { iso_code?: unknown };
}

/** Each distinct record is decoded once: a country file has a few hundred, so the lookup allocates nothing for it. */
const DECODED_RECORDS_MAX = 4096;

// addresses of large public services, only to see that the records found carry a country code
const PROBES = ['8.8.8.8', '1.1.1.1', '9.9.9.9', '2001:4860:4860::8888', '2606:4700:4700::1111'];

/** One loaded `.mmdb` country file, read in process (the maxmind reader over the file's bytes). */
export class CountryDatabase {
  private readonly reader: Reader<MmdbRecord>;
  /** When the file's data was built (its metadata's build_epoch): how stale the countries are. */
  readonly builtAt: Date;

  /** Throws an Error saying what is wrong with the bytes (the caller names the file). */
  constructor(bytes: Buffer) {
    if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b)
      throw new Error('it is gzip-compressed: unpack it first (gunzip)');
    const decoded = new Map<string | number, unknown>();
    const cache = {
      get: (key: string | number) => decoded.get(key),
      set: (key: string | number, value: unknown) => {
        if (decoded.size < DECODED_RECORDS_MAX) decoded.set(key, value);
      },
    };
    try {
      this.reader = new Reader<MmdbRecord>(bytes, { cache });
    } catch (err) {
      throw new Error(`it is not a MaxMind DB (.mmdb) file (${err instanceof Error ? err.message : String(err)})`);
    }
    const meta = this.reader.metadata;
    if (meta.binaryFormatMajorVersion !== 2 || !(meta.nodeCount > 0) || meta.searchTreeSize + 16 > bytes.length)
      throw new Error('it is not a MaxMind DB (.mmdb) file of format 2');
    // an IPv4-only tree would answer IPv6 lookups from the first 32 bits of the address: wrong countries
    if (meta.ipVersion !== 6) throw new Error('it covers IPv4 only: use a file with IPv4 and IPv6 (ip_version 6)');
    this.builtAt = meta.buildEpoch;
    if (Number.isNaN(this.builtAt.getTime())) throw new Error('its metadata has no build date (build_epoch)');
    for (const probe of PROBES) {
      const record = this.reader.get(probe);
      if (record !== null && codeOf(record) === undefined)
        throw new Error(
          'its records carry no country code (country_code or country.iso_code): is it a country database?',
        );
    }
  }

  /** The country of an address lookupAddress returned, or undefined when the file does not know it. */
  country(address: string): string | undefined {
    const record = this.reader.get(address);
    return record === null ? undefined : codeOf(record);
  }
}

function codeOf(found: MmdbRecord): string | undefined {
  // the reader's record types are MaxMind's own: read only the two fields a country file may have
  const record = found as CountryRecord;
  const code = record.country_code ?? record.country?.iso_code;
  // ZZ is the code some databases give ranges they know nothing about
  return isCountryCode(code) && code !== 'ZZ' ? code : undefined;
}

/** What identifies one version of the file on disk, so a replaced file is noticed (an atomic rename changes the inode). */
export type FileVersion = string;

export async function fileVersion(path: string): Promise<FileVersion> {
  const s = await stat(path);
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}

/**
 * Reads and checks a country file. Every problem is a ConfigError naming the setting and the file,
 * in words an operator can act on; the service does not start on one (see country-feature.ts).
 */
export async function readCountryDatabase(path: string): Promise<{ database: CountryDatabase; version: FileVersion }> {
  let bytes: Buffer;
  let version: FileVersion;
  try {
    version = await fileVersion(path);
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EACCES'
          ? 'the file is not readable by this process'
          : code === 'EISDIR'
            ? 'it is a directory'
            : `it cannot be read (${code ?? String(err)})`;
    throw countryFileError(path, reason);
  }
  try {
    return { database: new CountryDatabase(bytes), version };
  } catch (err) {
    throw countryFileError(path, (err as Error).message);
  }
}

function countryFileError(path: string, reason: string): ConfigError {
  return new ConfigError(
    `invalid configuration:\n  COUNTRY_DB_PATH: ${path} cannot be used as the country database: ${reason}. ` +
      'Point COUNTRY_DB_PATH at a MaxMind DB (.mmdb) country file, leave it unset for the bundled one, or set it to none to store no countries.',
  );
}
