#!/usr/bin/env node
// Fails when any installed production or development dependency has a licence outside the
// permissive allow-list (MIT, ISC, BSD, Apache-2.0, Unlicense and the like). Reads `pnpm licenses list --json`.
import { execFileSync } from 'node:child_process';

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
    if (!acceptable(license)) bad.push(`${pkg.name}@${(pkg.versions ?? [pkg.version]).join(',')}: ${license}`);
  }
}
if (bad.length > 0) {
  console.error(`licence check failed: ${bad.length} package(s) outside the allow-list:\n  ${bad.join('\n  ')}`);
  process.exit(1);
}
console.log(`licence check: ${count} packages, all permissive`);
