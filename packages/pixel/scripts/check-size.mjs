#!/usr/bin/env node
// Builds the snippet and fails when the minified <script> build, gzipped, is over the budget.
// Why 2 KB (README, "Size budget"): the snippet rides on every publisher page; today it is about
// 1.6 KB, so the budget leaves room for a small fix but makes any real growth a deliberate,
// reviewed change of this number.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { buildPixel, distDir } from './build.mjs';

export const GZIP_BUDGET_BYTES = 2048;

await buildPixel();
const esm = readFileSync(path.join(distDir, 'pixel.mjs'));
const min = readFileSync(path.join(distDir, 'pixel.min.js'));
const gzip = gzipSync(min, { level: 9 }).length;
const brotli = brotliCompressSync(min, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

console.log(`pixel.mjs (ES module, not minified): ${esm.length} B`);
console.log(
  `pixel.min.js: ${min.length} B, gzip ${gzip} B, brotli ${brotli} B (budget: gzip <= ${GZIP_BUDGET_BYTES} B)`,
);
if (gzip > GZIP_BUDGET_BYTES) {
  console.error(
    `pixel size budget exceeded: ${gzip} B gzipped > ${GZIP_BUDGET_BYTES} B. Make it smaller, or raise GZIP_BUDGET_BYTES in packages/pixel/scripts/check-size.mjs with the reason.`,
  );
  process.exit(1);
}
