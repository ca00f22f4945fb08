#!/usr/bin/env node
// Builds the snippet and fails when a minified <script> build, gzipped, is over its budget.
// Why 2 KB for pixel.min.js (README, "Size budget"): the snippet rides on every publisher page;
// today it is about 1.9 KB, so the budget leaves room for a small fix but makes any real growth a
// deliberate, reviewed change of this number. Attention measurement did not fit in that room, so
// it is a second file that only the pages measuring attention load, with a budget of its own
// (1 KB; about 0.75 KB today).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { buildPixel, distDir } from './build.mjs';

export const GZIP_BUDGET_BYTES = 2048;
export const ENGAGEMENT_GZIP_BUDGET_BYTES = 1024;

await buildPixel();
const esm = readFileSync(path.join(distDir, 'pixel.mjs'));
console.log(`pixel.mjs (ES module, not minified): ${esm.length} B`);

let over = false;
for (const [file, budget, constant] of [
  ['pixel.min.js', GZIP_BUDGET_BYTES, 'GZIP_BUDGET_BYTES'],
  ['pixel-engagement.min.js', ENGAGEMENT_GZIP_BUDGET_BYTES, 'ENGAGEMENT_GZIP_BUDGET_BYTES'],
]) {
  const min = readFileSync(path.join(distDir, file));
  const gzip = gzipSync(min, { level: 9 }).length;
  const brotli = brotliCompressSync(min, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`${file}: ${min.length} B, gzip ${gzip} B, brotli ${brotli} B (budget: gzip <= ${budget} B)`);
  if (gzip > budget) {
    console.error(
      `${file} size budget exceeded: ${gzip} B gzipped > ${budget} B. Make it smaller, or raise ${constant} in packages/pixel/scripts/check-size.mjs with the reason.`,
    );
    over = true;
  }
}
if (over) process.exit(1);
